import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { catalogProjection } from '../../../../projections/catalog/catalog.projection';
import { CatalogController } from './catalog.controller';

/** Catalog (spec 4.5): controllers for AppModule, projections for PROJECTIONS; call seedCatalog(platform) at start-up. */
export const catalogFeature = {
  controllers: [CatalogController],
  projections: [catalogProjection as unknown as DocumentProjection],
};
