import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import type { ContextModule } from './context-module';
import { catalogModule } from './modules/catalog.module';
import { computeModule } from './modules/compute.module';
import { identityModule } from './modules/identity.module';
import { jobsModule } from './modules/jobs.module';
import { providersModule } from './modules/providers.module';

/** Every bounded context the runtime runs; each app is built from this list (one line per context). */
export const CONTEXT_MODULES: readonly ContextModule[] = [identityModule, providersModule, catalogModule, computeModule, jobsModule];

/** Every read model, in registration order. */
export const PROJECTIONS: DocumentProjection[] = CONTEXT_MODULES.flatMap((m) => m.projections as DocumentProjection[]);
