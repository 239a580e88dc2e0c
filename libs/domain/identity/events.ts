import type { DomainEvent } from '../shared/domain-error';

export type ProjectRole = 'owner' | 'admin' | 'developer' | 'viewer';

export type ProjectCreated = DomainEvent<'identity.ProjectCreated.v1', { projectId: string; name: string; createdAt: string }>;

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
    expiresAt: string | null;
    createdAt: string;
  }
>;

export type ApiKeyUsed = DomainEvent<'identity.ApiKeyUsed.v1', { keyId: string; usedAt: string }>;

export type ApiKeyRevoked = DomainEvent<'identity.ApiKeyRevoked.v1', { keyId: string; projectId: string | null; revokedAt: string }>;

export type IdentityEvent = ProjectCreated | ApiKeyIssued | ApiKeyUsed | ApiKeyRevoked;

export const IdentityEventTypes = {
  ProjectCreated: 'identity.ProjectCreated.v1',
  ApiKeyIssued: 'identity.ApiKeyIssued.v1',
  ApiKeyUsed: 'identity.ApiKeyUsed.v1',
  ApiKeyRevoked: 'identity.ApiKeyRevoked.v1',
} as const;

export const projectStream = (projectId: string) => `project-${projectId}`;
export const apiKeyStream = (keyId: string) => `apikey-${keyId}`;
