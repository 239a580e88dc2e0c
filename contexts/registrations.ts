import type { ContextModule } from '../libs/runtime/src/context-module';
import { registryOf } from '../libs/runtime/src/registry';
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
import { consolesModule } from './modules/consoles.module';
import { gatewayModule } from './modules/gateway.module';
import { eventsModule } from './modules/events.module';

/**
 * The composition root: every bounded context the runtime runs; each app is built from this list (one
 * line per context) and hands it to its Platform.
 */
const DOMAIN_MODULES: readonly ContextModule[] = [identityModule, providersModule, catalogModule, computeModule, jobsModule, networkingModule, storageModule, kubernetesModule, databasesModule, filesModule, supportModule, billingModule, aiModule, adminModule, notificationsModule, webhooksModule, consolesModule, gatewayModule];

/** The domain's contexts, then the event history that indexes their events (DECISIONS 20). */
export const CONTEXT_MODULES: readonly ContextModule[] = [...DOMAIN_MODULES, eventsModule(DOMAIN_MODULES)];

const registry = registryOf(CONTEXT_MODULES);

/** Every job-backed resource, by the jobs' `resourceType`. */
export const JOB_RESOURCES = registry.jobResources;

/** Every read model, in registration order. */
export const PROJECTIONS = registry.projections;

/** The event names notification endpoints subscribe to, generated from every context's event types (DECISIONS 10). */
export const EVENT_NAMES = registry.eventNames;
