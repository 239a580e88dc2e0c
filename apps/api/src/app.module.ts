import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { Platform } from '../../../libs/runtime/src/platform';
import type { IdentityService } from './identity/identity.service';
import type { Ports } from '../../../libs/runtime/src/ports';
import { IDENTITY, OPERATOR, PERMISSIONS, PLATFORM, PORTS, REDIS_PING } from './tokens';
import { projectionOperator } from '../../../libs/runtime/src/operator';
import type { ProjectionOperatorPort } from '../../../usecases/admin/projections';
import { permissionCatalogue } from '../../../libs/http/src/route';
import { httpModules } from './routes';
import { asOfPorts } from './common/as-of';

@Module({})
export class AppModule {
  static forRoot(platform: Platform, identity: IdentityService, redisPing: (() => Promise<unknown>) | null): DynamicModule {
    const http = httpModules();
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: http.flatMap((m) => m.controllers),
      providers: [
        { provide: PLATFORM, useValue: platform },
        { provide: PORTS, useValue: asOfPorts(platform satisfies Ports) },
        { provide: OPERATOR, useValue: projectionOperator(platform) satisfies ProjectionOperatorPort },
        { provide: IDENTITY, useValue: identity },
        { provide: PERMISSIONS, useValue: () => permissionCatalogue() },
        { provide: REDIS_PING, useValue: redisPing },
        ...http.flatMap((m) => m.handlers ?? []),
      ],
    };
  }
}
