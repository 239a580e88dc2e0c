import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { templatesProjection } from '../../../../projections/templates/templates.projection';
import type { Feature } from '../common/resource-lifecycle';
import { TemplatesController } from './templates.controller';

/** Instance templates (spec 2.8, 4.6): wire the controllers into AppModule and the projections into PROJECTIONS. */
export const templatesFeature: Feature = {
  controllers: [TemplatesController],
  projections: [templatesProjection as unknown as DocumentProjection],
};
