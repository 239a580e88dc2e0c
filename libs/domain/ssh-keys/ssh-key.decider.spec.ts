import { deciderSpec } from '../shared/decider-spec';
import type { SshKeyEvent } from './events';
import { sshKeyDecider, sshKeyIdFor, type AddSshKey } from './ssh-key.decider';

const given = deciderSpec(sshKeyDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const fingerprint = 'SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const keyId = sshKeyIdFor('p1', 'pv1', fingerprint);
const add: AddSshKey = {
  type: 'AddSshKey',
  keyId,
  projectId: 'p1',
  providerId: 'pv1',
  name: 'laptop',
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample me@laptop',
  algorithm: 'ssh-ed25519',
  bits: 256,
  fingerprint,
  fingerprintMd5: 'MD5:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff',
  now,
};
const { type: _t, now: _n, ...addedData } = add;
const added: SshKeyEvent = { type: 'compute.SshKeyAdded.v1', data: { ...addedData, createdAt: now } };
const deleted: SshKeyEvent = { type: 'compute.SshKeyDeleted.v1', data: { keyId, projectId: 'p1', providerId: 'pv1', fingerprint, deletedAt: later } };
const del = (over: { projectId?: string; providerId?: string } = {}) => ({ type: 'DeleteSshKey', keyId, projectId: 'p1', providerId: 'pv1', now: later, ...over }) as const;

describe('SSH key decider', () => {
  it('derives one id per (project, provider, fingerprint)', () => {
    expect(sshKeyIdFor('p1', 'pv1', fingerprint)).toBe(keyId);
    expect(new Set([keyId, sshKeyIdFor('p2', 'pv1', fingerprint), sshKeyIdFor('p1', 'pv2', fingerprint), sshKeyIdFor('p1', 'pv1', 'SHA256:other')]).size).toBe(4);
  });

  describe('AddSshKey', () => {
    it('adds a key under the id its fingerprint gives', () => {
      given([]).when(add).then([added]);
    });

    it('refuses an id that does not match the fingerprint', () => {
      given([]).when({ ...add, keyId: sshKeyIdFor('p1', 'pv1', 'SHA256:other') }).thenThrows('BAD_REQUEST');
      given([]).when({ ...add, providerId: 'pv2' }).thenThrows('BAD_REQUEST');
    });

    it('refuses the same fingerprint twice for one provider', () => {
      given([added]).when({ ...add, name: 'again', now: later }).thenThrows('CONFLICT');
    });

    it('re-adds a deleted key under the same id', () => {
      given([added, deleted]).when({ ...add, name: 'again', now: later }).then([{ type: 'compute.SshKeyAdded.v1', data: { ...addedData, name: 'again', createdAt: later } }]);
    });
  });

  describe('DeleteSshKey', () => {
    it('deletes an active key, recording its fingerprint', () => {
      given([added]).when(del()).then([deleted]);
    });

    it('answers NOT_FOUND for a missing, deleted, other project\'s or other provider\'s key', () => {
      given([]).when(del()).thenThrows('NOT_FOUND');
      given([added, deleted]).when(del()).thenThrows('NOT_FOUND');
      given([added]).when(del({ projectId: 'p2' })).thenThrows('NOT_FOUND');
      given([added]).when(del({ providerId: 'pv2' })).thenThrows('NOT_FOUND');
    });
  });
});
