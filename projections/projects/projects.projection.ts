import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ProjectCreated } from '../../libs/domain/identity/events';
import { IdentityEventTypes } from '../../libs/domain/identity/events';

export interface ProjectDoc extends ReadDoc {
  name: string;
  createdAt: string;
}

export const projectsProjection: DocumentProjection<ProjectDoc> = {
  name: 'projects',
  version: 1,
  eventTypes: [IdentityEventTypes.ProjectCreated],
  indexes: [{ fields: [{ field: 'createdAt', direction: -1 }] }],
  documentId: (event) => (event.data as ProjectCreated['data']).projectId,
  evolve: (_current, recorded) => {
    const data = recorded.data as ProjectCreated['data'];
    return { id: data.projectId, _position: recorded.position, name: data.name, createdAt: data.createdAt };
  },
};
