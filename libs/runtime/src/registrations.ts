import type { DocumentProjection } from '../../subscriptions/src/document-projection';
import type { ContextModule } from './context-module';
import type { AnyJobBackedResource } from '../../../sagas/job-operations/job-operations';
import { catalogModule } from './modules/catalog.module';
import { computeModule } from './modules/compute.module';
import { identityModule } from './modules/identity.module';
import { jobsModule } from './modules/jobs.module';
import { providersModule } from './modules/providers.module';
import { storageModule } from './modules/storage.module';
import { networkingModule } from './modules/networking.module';
import { kubernetesModule } from './modules/kubernetes.module';
import { databasesModule } from './modules/databases.module';
import { supportModule } from './modules/support.module';
import { filesModule } from './modules/files.module';
import { billingModule } from './modules/billing.module';
import { aiModule } from './modules/ai.module';
import { adminModule } from './modules/admin.module';
import { notificationsModule } from './modules/notifications.module';
import { webhooksModule } from './modules/webhooks.module';
import { effectsProjection } from '../../../projections/effects/effects.projection';
import { eventNameCatalogue } from '../../domain/notifications/event-names';

/** Every bounded context the runtime runs; each app is built from this list (one line per context). */
export const CONTEXT_MODULES: readonly ContextModule[] = [identityModule, providersModule, catalogModule, computeModule, jobsModule, networkingModule, storageModule, kubernetesModule, databasesModule, filesModule, supportModule, billingModule, aiModule, adminModule, notificationsModule, webhooksModule];

/** Every job-backed resource, by the jobs' `resourceType`. */
export const JOB_RESOURCES: Readonly<Record<string, AnyJobBackedResource>> = Object.fromEntries(CONTEXT_MODULES.flatMap((m) => m.jobResources ?? []).map((r) => [r.resourceType, r]));

/** Every read model, in registration order; then the outbox's due-time index (the runtime's, like the job executor). */
export const PROJECTIONS: DocumentProjection[] = [...CONTEXT_MODULES.flatMap((m) => m.projections as DocumentProjection[]), effectsProjection as DocumentProjection];

/** The event names notification endpoints subscribe to, generated from every context's event types (DECISIONS 10). */
export const EVENT_NAMES = eventNameCatalogue(
  CONTEXT_MODULES.flatMap((m) => m.eventTypes),
  CONTEXT_MODULES.flatMap((m) => m.unpublished ?? []),
);
