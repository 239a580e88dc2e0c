import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ProjectCreated } from '../../libs/domain/identity/events';
import { IdentityEventTypes } from '../../libs/domain/identity/events';

export interface ProjectDoc extends ReadDoc {
  name: string;
  createdAt: string;
}

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
const LISTS: ListShape[] = [{ query: 'GET /v1/admin/projects', equal: [], sortable: ['createdAt', 'name'] }];

export const projectsProjection: DocumentProjection<ProjectDoc> = {
  name: 'projects',
  version: 1,
  eventTypes: [IdentityEventTypes.ProjectCreated],
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as ProjectCreated['data']).projectId,
  evolve: (_current, recorded) => {
    const data = recorded.data as ProjectCreated['data'];
    return { id: data.projectId, _position: recorded.position, name: data.name, createdAt: data.createdAt };
  },
};
