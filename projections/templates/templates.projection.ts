import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { InstanceTemplateEvent, InstanceTemplateSpec } from '../../libs/domain/templates/events';
import { InstanceTemplateEventTypes } from '../../libs/domain/templates/events';

export interface InstanceTemplateDoc extends ReadDoc, InstanceTemplateSpec {
  projectId: string;
  createdAt: string;
}

/** Serves GET /v1/templates and template lookups by id; deleted templates are removed. */
export const templatesProjection: DocumentProjection<InstanceTemplateDoc> = {
  name: 'instance_templates',
  version: 1,
  eventTypes: [InstanceTemplateEventTypes.InstanceTemplateCreated, InstanceTemplateEventTypes.InstanceTemplateDeleted],
  indexes: [
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'createdAt', direction: -1 }] },
    { fields: [{ field: 'projectId', direction: 1 }, { field: 'name', direction: 1 }] },
  ],
  documentId: (event) => (event.data as { templateId: string }).templateId,
  evolve: (_current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as InstanceTemplateEvent;
    switch (event.type) {
      case 'compute.InstanceTemplateCreated.v1': {
        const { templateId, ...rest } = event.data;
        return { id: templateId, _position: recorded.position, ...rest };
      }
      case 'compute.InstanceTemplateDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
