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
  list: { query: 'GET /v1/templates', equal: ['projectId'], sortable: ['createdAt', 'name'] },
});
