import type { ProjectRole } from '../../domain/identity/events';

/** One permission of the catalogue (`GET /v1/iam/permissions`): the routes needing it, the built-in roles holding it. */
export interface CataloguedPermission {
  permission: string;
  resource: string;
  action: string;
  routes: { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; summary: string }[];
  roles: ProjectRole[];
}
