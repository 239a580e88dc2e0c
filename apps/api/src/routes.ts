import type { Type } from '@nestjs/common';
import { CONTEXT_MODULES } from '../../../contexts/registrations';
import { AdminProjectionsController } from './admin/admin-projections.controller';
import { PROJECTION_OPERATOR_HANDLERS } from '../../../usecases/admin/projections';
import { BatchesController } from './batches/batches.controller';
import { CatalogSyncController } from './catalog/catalog-sync';
import { SyncCatalogHandler } from '../../../usecases/catalog/sync-catalog';
import { CatalogController } from './catalog/catalog.controller';
import { CatalogQueryHandler } from '../../../usecases/catalog/catalog-query';
import { HealthController } from './health/health.controller';
import { AdminProjectsController } from './identity/admin-projects.controller';
import { ApiKeysController } from './identity/api-keys.controller';
import { IamPermissionsController } from './identity/iam-permissions.controller';
import { IDENTITY_HANDLERS } from '../../../usecases/identity/identity.handlers';
import { MEMBER_HANDLERS } from '../../../usecases/identity/members.handlers';
import { InvitationsController, MEMBER_VIEW_CONTROLLERS } from './identity/members.routes';
import { ROLE_HANDLERS } from '../../../usecases/identity/roles.handlers';
import { RolesController } from './identity/roles.routes';
import { ProviderKeysController } from './identity/provider-keys.routes';
import { PROVIDER_KEY_HANDLERS } from '../../../usecases/identity/provider-keys';
import { InstancesController } from './instances/instances.controller';
import { INSTANCE_HANDLERS } from '../../../usecases/compute/instances.handlers';
import { JobsController } from './jobs/jobs.controller';
import { JOB_HANDLERS } from '../../../usecases/jobs/jobs.handlers';
import { BATCH_HANDLERS } from '../../../usecases/batches/batches.handlers';
import { SERVER_HANDLERS } from '../../../usecases/servers/servers.handlers';
import { ProvidersController } from './providers/providers.controller';
import { PROVIDER_HANDLERS } from '../../../usecases/providers/providers.handlers';
import { ServersController } from './servers/servers.controller';
import { SshKeysController } from './ssh-keys/ssh-keys.routes';
import { TemplatesController } from './templates/templates.routes';
import { SIMPLE_RESOURCE_HANDLERS } from '../../../usecases/resources/simple-resources';
import { JOB_RESOURCE_HANDLERS } from '../../../usecases/resources/job-resources';
import { VolumesController } from './storage/volumes.routes';
import { BucketsController } from './storage/buckets.routes';
import { FileSystemsController } from './storage/file-systems.routes';
import { SnapshotsController } from './storage/snapshots.routes';
import { ElasticIpsController } from './networking/elastic-ips.routes';
import { VlansController } from './networking/vlans.routes';
import { FirewallsController } from './networking/firewalls.routes';
import { PrivateNetworksController } from './networking/private-networks.routes';
import { InterconnectionsController } from './networking/interconnections.routes';
import { NetworkDatabasesController } from './networking/network-databases.routes';
import { NETWORK_DATABASE_HANDLERS } from '../../../usecases/networking/network-databases';
import { ClustersController } from './kubernetes/clusters.routes';
import { KubernetesController } from './kubernetes/kubernetes.routes';
import { KUBERNETES_HANDLERS } from '../../../usecases/kubernetes/kubernetes';
import { DatabasesController, DatabaseVersionsController } from './databases/databases.routes';
import { DATABASE_HANDLERS } from '../../../usecases/databases/databases';
import { SUPPORT_HANDLERS } from '../../../usecases/support/support.handlers';
import { SupportController } from './support/support.controller';
import { FILE_HANDLERS, FilesController } from './files/files.routes';
import { WALLET_HANDLERS } from '../../../usecases/billing/wallets.handlers';
import { WalletsController } from './billing/wallets.controller';
import { ModelsController } from './models/models.routes';
import { AdminCustomersController } from './admin/customers';
import { CUSTOMER_HANDLERS } from '../../../usecases/admin/customers';
import { KycController } from './admin/kyc';
import { KYC_HANDLERS } from '../../../usecases/admin/kyc';
import { NOTIFICATION_HANDLERS, NotificationsController } from './notifications/notifications.routes';
import { AdminSettingsController } from './admin/settings';
import { SETTINGS_HANDLERS } from '../../../usecases/admin/settings';
import { AdminCatalogController } from './admin/admin-catalog';
import { ADMIN_CATALOG_HANDLERS } from '../../../usecases/admin/catalog-entries';
import { PAYMENT_HANDLERS } from '../../../usecases/billing/payments.handlers';
import { PaymentsController } from './billing/payments.controller';
import { InboundWebhooksController } from './webhooks/webhooks.controller';
import { WEBHOOK_HANDLERS } from '../../../usecases/webhooks/receive-inbound-webhook';
import { AdminAnalyticsController } from './admin/analytics';
import { ANALYTICS_HANDLERS } from '../../../usecases/admin/analytics';
import { InvoicesController } from './invoicing/invoices.controller';
import { INVOICING_HANDLERS } from '../../../usecases/invoicing/invoices.handlers';
import { UsageController } from './invoicing/usage.controller';
import { CostEstimatesController } from './billing/cost-estimates';
import { COST_ESTIMATE_HANDLERS } from '../../../usecases/billing/cost-estimates';
import { ConsoleSessionsController } from './consoles/console-sessions';
import { CONSOLE_SESSION_HANDLERS } from '../../../usecases/consoles/console-sessions';
import { EventsController } from './events/events.controller';
import { EVENT_HANDLERS } from './events/events.handlers';

/** A context's HTTP surface: controllers that map HTTP to commands and queries, and their handlers. */
export interface HttpModule {
  controllers: Type<unknown>[];
  /** The use cases' command and query handler classes it calls (Nest providers, injected with their ports). */
  handlers?: Type<unknown>[];
}

/** The platform's own routes and shared handlers, no context's. */
export const PLATFORM_ROUTES: HttpModule = { controllers: [HealthController, AdminProjectionsController], handlers: [...SIMPLE_RESOURCE_HANDLERS, ...JOB_RESOURCE_HANDLERS, ...PROJECTION_OPERATOR_HANDLERS] };

/**
 * The HTTP side of each registered context, keyed by its module's name (the runtime's modules hold
 * what runs from the log; their routes live here so the runtime never depends on HTTP). A context is
 * registered once, in CONTEXT_MODULES; an entry here for any other name stops the app (`httpModules`).
 */
export const ROUTES: Readonly<Record<string, HttpModule>> = {
  identity: {
    controllers: [ApiKeysController, AdminProjectsController, IamPermissionsController, ...MEMBER_VIEW_CONTROLLERS, InvitationsController, RolesController, ProviderKeysController],
    handlers: [...IDENTITY_HANDLERS, ...MEMBER_HANDLERS, ...ROLE_HANDLERS, ...PROVIDER_KEY_HANDLERS],
  },
  providers: { controllers: [ProvidersController], handlers: PROVIDER_HANDLERS },
  catalog: { controllers: [CatalogController, CatalogSyncController], handlers: [CatalogQueryHandler, SyncCatalogHandler] },
  compute: { controllers: [SshKeysController, TemplatesController, InstancesController, ServersController, BatchesController], handlers: [...INSTANCE_HANDLERS, ...SERVER_HANDLERS, ...BATCH_HANDLERS] },
  networking: { controllers: [ElasticIpsController, VlansController, FirewallsController, PrivateNetworksController, InterconnectionsController, NetworkDatabasesController], handlers: NETWORK_DATABASE_HANDLERS },
  storage: { controllers: [VolumesController, SnapshotsController, FileSystemsController, BucketsController] },
  kubernetes: { controllers: [ClustersController, KubernetesController], handlers: KUBERNETES_HANDLERS },
  databases: { controllers: [DatabasesController, DatabaseVersionsController], handlers: DATABASE_HANDLERS },
  files: { controllers: [FilesController], handlers: FILE_HANDLERS },
  support: { controllers: [SupportController], handlers: SUPPORT_HANDLERS },
  notifications: { controllers: [NotificationsController], handlers: NOTIFICATION_HANDLERS },
  jobs: { controllers: [JobsController], handlers: JOB_HANDLERS },
  billing: { controllers: [WalletsController, PaymentsController, InvoicesController, UsageController, CostEstimatesController], handlers: [...WALLET_HANDLERS, ...PAYMENT_HANDLERS, ...INVOICING_HANDLERS, ...COST_ESTIMATE_HANDLERS] },
  ai: { controllers: [ModelsController] },
  admin: { controllers: [AdminCustomersController, KycController, AdminSettingsController, AdminCatalogController, AdminAnalyticsController], handlers: [...CUSTOMER_HANDLERS, ...KYC_HANDLERS, ...SETTINGS_HANDLERS, ...ADMIN_CATALOG_HANDLERS, ...ANALYTICS_HANDLERS] },
  webhooks: { controllers: [InboundWebhooksController], handlers: WEBHOOK_HANDLERS },
  consoles: { controllers: [ConsoleSessionsController], handlers: CONSOLE_SESSION_HANDLERS },
  events: { controllers: [EventsController], handlers: EVENT_HANDLERS },
};

/**
 * What the API serves: the platform's routes, then each registered context's, in registration order.
 * Throws when routes are keyed by a name no context is registered under (they would never be served).
 */
export function httpModules(contexts: readonly { name: string }[] = CONTEXT_MODULES): HttpModule[] {
  const registered = new Set(contexts.map((c) => c.name));
  const orphans = Object.keys(ROUTES).filter((name) => !registered.has(name));
  if (orphans.length > 0) throw new Error(`routes keyed by no registered context: ${orphans.join(', ')} (contexts are listed in CONTEXT_MODULES)`);
  return [PLATFORM_ROUTES, ...contexts.flatMap((c) => (Object.prototype.hasOwnProperty.call(ROUTES, c.name) ? [ROUTES[c.name]] : []))];
}
