import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import { simpleResourceDecider, type SimpleResource } from '../shared/simple-resource';
import { SSH_KEY_ALGORITHMS, parseOpenSshPublicKey, type SshKeyAlgorithm } from './openssh-public-key';

export const sshKeyStream = (keyId: string) => `sshkey-${keyId}`;

const SSH_KEY_NAMESPACE = '4b0f7c1e-2a57-4d0e-9a55-0d1c7a3f8e21';

/**
 * A key's id is derived from (project, provider, fingerprint), so "one key per fingerprint and
 * provider" is guarded by the stream's expected revision: a duplicate lands on the same stream
 * and is refused there, also under concurrent requests. Re-adding a deleted key revives the id.
 */
export const sshKeyIdFor = (projectId: string, providerId: string, fingerprint: string): string => uuidv5(`${projectId}/${providerId}/${fingerprint}`, SSH_KEY_NAMESPACE);

/** An OpenSSH public key line, checked by parsing it. */
export const openSshPublicKey = z
  .string()
  .max(16384)
  .superRefine((value, ctx) => {
    const parsed = parseOpenSshPublicKey(value);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `publicKey is not a valid OpenSSH public key: ${parsed.reason}` });
  });

/** SSH keys per provider (spec 4.7); public material only. */
export const sshKeySchema = z.object({
  providerId: z.string().min(1).max(64),
  name: z.string().min(1).max(64),
  publicKey: openSshPublicKey.describe('OpenSSH public key line: `<algorithm> <base64>[ <comment>]`'),
  algorithm: z.enum(SSH_KEY_ALGORITHMS as unknown as [SshKeyAlgorithm, ...SshKeyAlgorithm[]]),
  bits: z.number().int(),
  fingerprint: z.string().describe('SHA256:<unpadded base64>, as `ssh-keygen -l` prints it'),
  fingerprintMd5: z.string().describe('Legacy MD5 fingerprint, colon-separated hex'),
});
export type SshKeyFields = z.output<typeof sshKeySchema>;

export const sshKeys: SimpleResource<typeof sshKeySchema> = {
  label: 'SSH key',
  idField: 'keyId',
  stream: sshKeyStream,
  schema: sshKeySchema,
  events: { created: 'compute.SshKeyAdded.v1', deleted: 'compute.SshKeyDeleted.v1' },
  scope: ['providerId'],
  carried: ['fingerprint'],
  reusableIds: true,
  rules: ({ id, projectId, fields }) => (id === sshKeyIdFor(projectId, fields.providerId, fields.fingerprint) ? null : new DomainError('BAD_REQUEST', 'SSH key id does not match its fingerprint')),
  conflict: ({ fields }) => `An SSH key with fingerprint ${fields.fingerprint} already exists for this provider`,
};

export const sshKeyDecider = simpleResourceDecider(sshKeys);
