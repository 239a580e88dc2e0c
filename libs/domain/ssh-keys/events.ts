import type { DomainEvent } from '../shared/domain-error';
import type { SshKeyAlgorithm } from './openssh-public-key';

/** Part of the compute context (type prefix `compute.`); stream `sshkey-<keyId>`. */
export type SshKeyAdded = DomainEvent<
  'compute.SshKeyAdded.v1',
  {
    keyId: string;
    projectId: string;
    providerId: string;
    name: string;
    /** Public material only; `<algorithm> <base64>[ <comment>]`. */
    publicKey: string;
    algorithm: SshKeyAlgorithm;
    bits: number;
    fingerprint: string;
    fingerprintMd5: string;
    createdAt: string;
  }
>;

export type SshKeyDeleted = DomainEvent<'compute.SshKeyDeleted.v1', { keyId: string; projectId: string; providerId: string; fingerprint: string; deletedAt: string }>;

export type SshKeyEvent = SshKeyAdded | SshKeyDeleted;

export const SshKeyEventTypes = {
  SshKeyAdded: 'compute.SshKeyAdded.v1',
  SshKeyDeleted: 'compute.SshKeyDeleted.v1',
} as const;

export const sshKeyStream = (keyId: string) => `sshkey-${keyId}`;
