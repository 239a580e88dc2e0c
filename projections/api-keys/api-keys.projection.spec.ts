import { logRecorder, projected } from '../../test/support/projector';
import { apiKeysProjection } from './api-keys.projection';

const issued = (over: Record<string, unknown> = {}) => ({ projectId: 'p1', scope: 'project', name: 'ci', prefix: 'sk_live_ab12', keyHash: 'hmac-1', role: 'developer', expiresAt: '2027-01-01T00:00:00.000Z', createdAt: '2026-01-01T00:00:00.000Z', ...over });

describe('api keys read model: the key lookup of authentication and GET /v1/api-keys', () => {
  it('holds an issued key by its hash, never the key, and follows its use and revocation', async () => {
    const log = logRecorder();
    const k = log.stream('apikey-k1', { keyId: 'k1' });
    const model = await projected(apiKeysProjection);
    await model.handle(k('identity.ApiKeyIssued.v1', issued()));
    expect(await model.get('k1')).toEqual({ id: 'k1', _position: 1, projectId: 'p1', scope: 'project', name: 'ci', prefix: 'sk_live_ab12', keyHash: 'hmac-1', role: 'developer', customRoleId: null, expiresAt: '2027-01-01T00:00:00.000Z', revoked: false, revokedAt: null, createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null });
    expect(await model.collection.findOne({ keyHash: 'hmac-1' })).toMatchObject({ id: 'k1' });

    await model.handle(k('identity.ApiKeyUsed.v1', { usedAt: '2026-01-02T00:00:00.000Z' }), k('identity.ApiKeyRevoked.v1', { projectId: 'p1', revokedAt: '2026-01-03T00:00:00.000Z' }));
    expect(await model.get('k1')).toMatchObject({ _position: 3, lastUsedAt: '2026-01-02T00:00:00.000Z', revoked: true, revokedAt: '2026-01-03T00:00:00.000Z', keyHash: 'hmac-1' });
  });

  it('keeps the custom role a key acts with, and a platform-admin key without a project', async () => {
    const log = logRecorder();
    const model = await projected(apiKeysProjection);
    await model.handle(
      log.stream('apikey-k1', { keyId: 'k1' })('identity.ApiKeyIssued.v1', issued({ role: 'viewer', customRoleId: 'role-1', roleGrant: 'g1' })),
      log.stream('apikey-k2', { keyId: 'k2' })('identity.ApiKeyIssued.v1', issued({ projectId: null, scope: 'platform-admin', keyHash: 'hmac-2', role: 'owner' })),
    );
    expect(await model.get('k1')).toMatchObject({ role: 'viewer', customRoleId: 'role-1' });
    expect(await model.get('k2')).toMatchObject({ projectId: null, scope: 'platform-admin', customRoleId: null });
  });

  it('creates no key from a use or a revocation of one it never saw issued', async () => {
    const log = logRecorder();
    const k = log.stream('apikey-k9', { keyId: 'k9' });
    const model = await projected(apiKeysProjection);
    await model.handle(k('identity.ApiKeyUsed.v1', { usedAt: '2026-01-02T00:00:00.000Z' }), k('identity.ApiKeyRevoked.v1', { projectId: 'p1', revokedAt: '2026-01-03T00:00:00.000Z' }));
    expect(await model.all()).toEqual([]);
  });

  it('does not bring a revoked key back when the log hands its events again after a restart', async () => {
    const log = logRecorder();
    const k = log.stream('apikey-k1', { keyId: 'k1' });
    const events = [k('identity.ApiKeyIssued.v1', issued()), k('identity.ApiKeyRevoked.v1', { projectId: 'p1', revokedAt: '2026-01-03T00:00:00.000Z' })];
    const model = await projected(apiKeysProjection);
    await model.handle(...events);
    model.restart();
    expect(await model.handle(events[0])).toBe(false);
    expect(await model.get('k1')).toMatchObject({ revoked: true, revokedAt: '2026-01-03T00:00:00.000Z' });
  });

  it('lists a project\'s keys apart from another project\'s and from platform-admin keys', async () => {
    const log = logRecorder();
    const model = await projected(apiKeysProjection);
    await model.handle(
      log.stream('apikey-a', { keyId: 'a' })('identity.ApiKeyIssued.v1', issued({ name: 'b-key', keyHash: 'h-a' })),
      log.stream('apikey-b', { keyId: 'b' })('identity.ApiKeyIssued.v1', issued({ name: 'a-key', keyHash: 'h-b' })),
      log.stream('apikey-c', { keyId: 'c' })('identity.ApiKeyIssued.v1', issued({ projectId: 'p2', keyHash: 'h-c' })),
      log.stream('apikey-d', { keyId: 'd' })('identity.ApiKeyIssued.v1', issued({ projectId: null, scope: 'platform-admin', keyHash: 'h-d' })),
    );
    const { items } = await model.collection.find({ filter: { projectId: 'p1', scope: 'project' }, sort: [{ field: 'name', direction: 1 }] });
    expect(items.map((d) => d.id)).toEqual(['b', 'a']);
  });
});
