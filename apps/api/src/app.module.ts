import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { Platform } from './platform/platform';
import { IDENTITY, IdentityService } from './identity/identity.service';
import { ApiKeysController } from './identity/api-keys.controller';
import { AdminProjectsController } from './identity/admin-projects.controller';
import { HealthController } from './health/health.controller';
import { AdminProjectionsController } from './admin/admin-projections.controller';
import { PLATFORM, REDIS_PING } from './tokens';
import { providersFeature } from './providers/providers.feature';
import { catalogFeature } from './catalog/catalog.feature';
import { sshKeysFeature } from './ssh-keys/ssh-keys.feature';
import { templatesFeature } from './templates/templates.feature';
import { instancesFeature } from './instances/instances.feature';
import { serversFeature } from './servers/servers.feature';
import { CatalogSyncController } from './catalog/catalog-sync';
import { BatchesController } from './batches/batches.controller';

@Module({})
export class AppModule {
  static forRoot(platform: Platform, identity: IdentityService, redisPing: (() => Promise<unknown>) | null): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: [HealthController, ApiKeysController, AdminProjectsController, AdminProjectionsController, ...providersFeature.controllers, ...catalogFeature.controllers, ...sshKeysFeature.controllers, ...templatesFeature.controllers, ...instancesFeature.controllers, ...serversFeature.controllers, CatalogSyncController, BatchesController],
      providers: [
        { provide: PLATFORM, useValue: platform },
        { provide: IDENTITY, useValue: identity },
        { provide: REDIS_PING, useValue: redisPing },
      ],
    };
  }
}
