import { CatalogEventTypes } from '../../libs/domain/catalog/events';
import { catalogProjection } from '../../projections/catalog/catalog.projection';
import { CatalogSyncOperation } from '../../sagas/catalog-sync/catalog-sync';
import { isoNow } from '../../libs/runtime/src/clock';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** The provider catalogs (spec 4.5) and their `catalog.sync` jobs. */
export const catalogModule: ContextModule = {
  name: 'catalog',
  projections: [catalogProjection],
  jobHandlers: (rt) => ({
    catalog: new CatalogSyncOperation({ events: rt.events, now: () => isoNow(rt.clock), waitForProjections: (p, n) => rt.consistency.waitForProjections(p, n) }),
  }),
  eventTypes: Object.values(CatalogEventTypes),
};
