import type { DomainEvent } from '../shared/domain-error';
import type { SshKeyFields } from './ssh-key.resource';

/** Part of the compute context (type prefix `compute.`); stream `sshkey-<keyId>`. */
export type SshKeyAdded = DomainEvent<'compute.SshKeyAdded.v1', SshKeyFields & { keyId: string; projectId: string; createdAt: string }>;
export type SshKeyDeleted = DomainEvent<'compute.SshKeyDeleted.v1', { keyId: string; projectId: string; providerId: string; fingerprint: string; deletedAt: string }>;
export type SshKeyEvent = SshKeyAdded | SshKeyDeleted;
