import { indexOn } from '../../libs/readstore/src/list-shapes';
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
  // List indexes: [sort field (both ways), id], see libs/readstore/src/list-shapes.ts.
  indexes: [indexOn('-createdAt', 'id'), indexOn('createdAt', 'id'), indexOn('name', 'id'), indexOn('-name', 'id')],
  lists: [{ query: 'GET /v1/admin/projects', equal: [], sortable: ['createdAt', 'name'] }],
  documentId: (event) => (event.data as ProjectCreated['data']).projectId,
  evolve: (_current, recorded) => {
    const data = recorded.data as ProjectCreated['data'];
    return { id: data.projectId, _position: recorded.position, name: data.name, createdAt: data.createdAt };
  },
};
