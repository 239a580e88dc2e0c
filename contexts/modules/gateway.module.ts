import { GatewayEventTypes } from '../../libs/domain/gateway/events';
import { gatewayKeysProjection } from '../../projections/gateway-keys/gateway-keys.projection';
import { gatewaySpendProjection, gatewayUsageProjection } from '../../projections/gateway-usage/gateway-usage.projection';
import { gatewayConnectionsProjection } from '../../projections/gateway-connections/gateway-connections.projection';
import { gatewayCustomModelsProjection, gatewayWaterfallsProjection } from '../../projections/gateway-models/gateway-models.projection';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/**
 * The inference gateway (spec 4.18, 5.2; DECISIONS 19): organization keys and their limits, spend
 * reservations and the usage ledger, provider connections, custom models and waterfalls. Its HTTP surface is apps/gateway; spend reservations are its
 * own bookkeeping, not published by name.
 */
export const gatewayModule: ContextModule = {
  name: 'gateway',
  projections: [gatewayKeysProjection, gatewayUsageProjection, gatewaySpendProjection, gatewayConnectionsProjection, gatewayCustomModelsProjection, gatewayWaterfallsProjection],
  eventTypes: Object.values(GatewayEventTypes),
  unpublished: [GatewayEventTypes.SpendReserved, GatewayEventTypes.SpendSettled],
};
