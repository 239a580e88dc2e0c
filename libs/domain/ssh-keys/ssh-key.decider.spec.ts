import { ed25519Key } from '../../../test/support/ssh-keys';
import { deciderSpec } from '../shared/decider-spec';
import type { CreateResource, DeleteResource } from '../shared/simple-resource';
import { parseOpenSshPublicKey } from './openssh-public-key';
import { sshKeyDecider, sshKeyIdFor, type SshKeyFields } from './ssh-key.resource';

const given = deciderSpec(sshKeyDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const parsed = parseOpenSshPublicKey(ed25519Key('me@laptop'));
if (!parsed.ok) throw new Error(parsed.reason);
const { normalized, algorithm, bits, fingerprint, fingerprintMd5 } = parsed.key;
const fields: SshKeyFields = { providerId: 'pv1', name: 'laptop', publicKey: normalized, algorithm, bits, fingerprint, fingerprintMd5 };
const keyId = sshKeyIdFor('p1', 'pv1', fingerprint);
const add = (over: Partial<SshKeyFields> = {}, id = keyId, at = now): CreateResource<SshKeyFields> => ({ type: 'CreateResource', id, projectId: 'p1', fields: { ...fields, ...over }, now: at });
const added = { type: 'compute.SshKeyAdded.v1', data: { ...fields, keyId, projectId: 'p1', createdAt: now } };
const deleted = { type: 'compute.SshKeyDeleted.v1', data: { keyId, projectId: 'p1', providerId: 'pv1', fingerprint, deletedAt: later } };
const del = (over: { projectId?: string; providerId?: string } = {}): DeleteResource => ({ type: 'DeleteResource', id: keyId, projectId: over.projectId ?? 'p1', scope: { providerId: over.providerId ?? 'pv1' }, now: later });

describe('SSH key decider', () => {
  it('derives one id per (project, provider, fingerprint)', () => {
    expect(sshKeyIdFor('p1', 'pv1', fingerprint)).toBe(keyId);
    expect(new Set([keyId, sshKeyIdFor('p2', 'pv1', fingerprint), sshKeyIdFor('p1', 'pv2', fingerprint), sshKeyIdFor('p1', 'pv1', 'SHA256:other')]).size).toBe(4);
  });

  describe('create', () => {
    it('adds a key under the id its fingerprint gives', () => {
      given([]).when(add()).then([added]);
    });

    it('refuses an id that does not match the fingerprint', () => {
      given([]).when(add({}, sshKeyIdFor('p1', 'pv1', 'SHA256:other'))).thenThrows('BAD_REQUEST', /fingerprint/);
      given([]).when(add({ providerId: 'pv2' })).thenThrows('BAD_REQUEST', /fingerprint/);
    });

    it('refuses fields outside the schema, whoever sends them', () => {
      given([]).when(add({ publicKey: 'ssh-ed25519 not-base64' })).thenThrows('BAD_REQUEST', /publicKey/);
      given([]).when(add({ name: '' })).thenThrows('BAD_REQUEST', /name/);
    });

    it('refuses the same fingerprint twice for one provider', () => {
      given([added]).when(add({ name: 'again' }, keyId, later)).thenThrows('CONFLICT', /fingerprint/);
    });

    it('re-adds a deleted key under the same id', () => {
      given([added, deleted]).when(add({ name: 'again' }, keyId, later)).then([{ type: 'compute.SshKeyAdded.v1', data: { ...fields, name: 'again', keyId, projectId: 'p1', createdAt: later } }]);
    });
  });

  describe('delete', () => {
    it('deletes an active key, recording its provider and fingerprint', () => {
      given([added]).when(del()).then([deleted]);
    });

    it("answers NOT_FOUND for a missing, deleted, other project's or other provider's key", () => {
      given([]).when(del()).thenThrows('NOT_FOUND');
      given([added, deleted]).when(del()).thenThrows('NOT_FOUND');
      given([added]).when(del({ projectId: 'p2' })).thenThrows('NOT_FOUND');
      given([added]).when(del({ providerId: 'pv2' })).thenThrows('NOT_FOUND');
    });
  });
});
