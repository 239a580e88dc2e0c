import { instanceTemplates } from '../../libs/domain/templates/instance-template.resource';
import { simpleResourceProjection, type SimpleResourceDoc } from '../../libs/subscriptions/src/simple-resource-projection';

export type InstanceTemplateDoc = SimpleResourceDoc<typeof instanceTemplates.schema>;

/**
 * Serves GET /v1/templates and template lookups by id; deleted templates are removed.
 * v2: tags are the `{key, value}` array (v1 documents held the object form).
 */
export const templatesProjection = simpleResourceProjection(instanceTemplates, {
  name: 'instance_templates',
  version: 2,
  indexes: [
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'createdAt', direction: -1 }] },
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'name', direction: 1 }] },
  ],
});
