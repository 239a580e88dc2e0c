import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { CustomRoleEventTypes, type CustomRoleEvent } from '../../libs/domain/identity/custom-roles';
import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';

export interface CustomRoleDoc extends ReadDoc {
  projectId: string;
  name: string;
  description: string | null;
  permissions: string[];
  createdAt: string;
  updatedAt: string;
}

/** GET /v1/iam/roles reads a project's custom roles whole (at most 100) and merges the built-ins. */
const LISTS: ListShape[] = [{ query: 'GET /v1/iam/roles', equal: ['projectId'], sortable: ['createdAt'] }];

export const customRolesProjection: DocumentProjection<CustomRoleDoc> = {
  name: 'custom_roles',
  version: 1,
  eventTypes: Object.values(CustomRoleEventTypes),
  creates: [CustomRoleEventTypes.RoleCreated],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { roleId: string }).roleId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as CustomRoleEvent;
    switch (event.type) {
      case 'identity.RoleCreated.v1': {
        const d = event.data;
        return { id: d.roleId, _position: recorded.position, projectId: d.projectId, name: d.name, description: d.description, permissions: d.permissions, createdAt: d.createdAt, updatedAt: d.createdAt };
      }
      case 'identity.RoleUpdated.v1': {
        const d = event.data;
        return current && { ...current, _position: recorded.position, name: d.name, description: d.description, permissions: d.permissions, updatedAt: d.updatedAt };
      }
      case 'identity.RoleDeleted.v1':
        return null;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
