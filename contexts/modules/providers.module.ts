import { ProviderEventTypes } from '../../libs/domain/providers/events';
import { providersProjection } from '../../projections/providers/providers.projection';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Cloud providers and their credentials (spec 2.11, 4.4). */
export const providersModule: ContextModule = {
  name: 'providers',
  projections: [providersProjection],
  eventTypes: Object.values(ProviderEventTypes),
};
