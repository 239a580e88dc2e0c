import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { providersProjection } from '../../../../projections/providers/providers.projection';
import { ProvidersController } from './providers.controller';

/** Providers (spec 2.11, 4.4): wire the controllers into AppModule and the projections into PROJECTIONS. */
export const providersFeature = {
  controllers: [ProvidersController],
  projections: [providersProjection as unknown as DocumentProjection],
};
