import type { DomainEvent } from '../shared/domain-error';

export type ProjectRole = 'owner' | 'admin' | 'developer' | 'viewer';

/**
 * `workspaceId` (DECISIONS 15): the workspace the project belongs to, for good (no route moves a
 * project). A workspace's id is the id of the project that started it; events from before workspaces
 * have none: each of those projects is its own workspace (`workspaceOfCreated`).
 */
export type ProjectCreated = DomainEvent<'identity.ProjectCreated.v1', { projectId: string; name: string; createdAt: string; workspaceId?: string }>;

/** The workspace a ProjectCreated puts its project in: its own when the event names none (events from before workspaces). */
export const workspaceOfCreated = (data: ProjectCreated['data']): string => data.workspaceId ?? data.projectId;

export type ApiKeyIssued = DomainEvent<
  'identity.ApiKeyIssued.v1',
  {
    keyId: string;
    /** null for a platform-admin key. */
    projectId: string | null;
    scope: 'project' | 'platform-admin';
    name: string;
    prefix: string;
    /** Keyed HMAC of the key; the key itself is never recorded. */
    keyHash: string;
    role: ProjectRole;
    /** A custom role the key acts with instead of `role` (then `viewer`): its permission list decides. */
    customRoleId?: string;
    /** The grant of `customRoleId` recorded on the role's stream (RoleGranted) before this event; absent on keys from before. */
    roleGrant?: string;
    expiresAt: string | null;
    createdAt: string;
  }
>;

export type ApiKeyUsed = DomainEvent<'identity.ApiKeyUsed.v1', { keyId: string; usedAt: string }>;

export type ApiKeyRevoked = DomainEvent<'identity.ApiKeyRevoked.v1', { keyId: string; projectId: string | null; revokedAt: string }>;

/**
 * A custom role's delete found the grant `grantId` of the key `keyId` still unissued (the issuing
 * request crashed, was refused, or is still between its two appends): the key's stream is closed by
 * this event, so the key can never be issued with the deleted role. Bookkeeping: no read model needs it.
 */
export type ApiKeyGrantVoided = DomainEvent<'identity.ApiKeyGrantVoided.v1', { keyId: string; projectId: string | null; roleId: string; grantId: string; voidedAt: string }>;

/** Platform administration (DECISIONS 18): a suspended project's credentials get 403, its data kept. */
export type ProjectSuspended = DomainEvent<'identity.ProjectSuspended.v1', { projectId: string; reason?: string; suspendedAt: string }>;
export type ProjectReactivated = DomainEvent<'identity.ProjectReactivated.v1', { projectId: string; reason?: string; reactivatedAt: string }>;
/** Final: the project's credentials stop working (401) and its running resources are terminated by jobs; its history is kept. */
export type ProjectClosed = DomainEvent<'identity.ProjectClosed.v1', { projectId: string; reason: string; closedAt: string }>;

export type ProjectEvent = ProjectCreated | ProjectSuspended | ProjectReactivated | ProjectClosed;

export type IdentityEvent = ProjectEvent | ApiKeyIssued | ApiKeyUsed | ApiKeyRevoked | ApiKeyGrantVoided;

export const IdentityEventTypes = {
  ProjectCreated: 'identity.ProjectCreated.v1',
  ProjectSuspended: 'identity.ProjectSuspended.v1',
  ProjectReactivated: 'identity.ProjectReactivated.v1',
  ProjectClosed: 'identity.ProjectClosed.v1',
  ApiKeyIssued: 'identity.ApiKeyIssued.v1',
  ApiKeyUsed: 'identity.ApiKeyUsed.v1',
  ApiKeyRevoked: 'identity.ApiKeyRevoked.v1',
  ApiKeyGrantVoided: 'identity.ApiKeyGrantVoided.v1',
} as const;

export const projectStream = (projectId: string) => `project-${projectId}`;
export const apiKeyStream = (keyId: string) => `apikey-${keyId}`;
