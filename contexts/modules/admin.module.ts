import { KycEventTypes } from '../../libs/domain/admin/kyc';
import { SettingsEventTypes } from '../../libs/domain/admin/settings';
import { kycRequestsProjection } from '../../projections/kyc-requests/kyc-requests.projection';
import { platformSettingsProjection } from '../../projections/platform-settings/platform-settings.projection';
import { revenueProjection } from '../../projections/revenue/revenue.projection';
import { ProjectClosure } from '../../sagas/project-closure/project-closure';
import { isoNow } from '../../libs/runtime/src/clock';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * Platform administration (spec 4.17, DECISIONS 18): KYC requests, the settings stream (config, margin,
 * catalog edits), revenue by month for the analytics and the closure of a project (its resources terminated by jobs). A project's standing
 * itself is recorded on its own stream (identity) and read by the auth pipeline from the projects model.
 */
export const adminModule: ContextModule = {
  name: 'admin',
  projections: [kycRequestsProjection, platformSettingsProjection, revenueProjection],
  processManagers: (rt) => [
    new ProjectClosure({
      events: rt.events,
      projections: rt.projections,
      waitForProjections: (position, names) => rt.consistency.waitForProjections(position, names),
      resources: rt.jobResources,
      now: () => isoNow(rt.clock),
      logger: rt.logger,
    }),
  ],
  eventTypes: [...Object.values(KycEventTypes), ...Object.values(SettingsEventTypes)],
  // Platform settings concern no project: not an event name a project's notification endpoint can subscribe to.
  unpublished: Object.values(SettingsEventTypes),
};
