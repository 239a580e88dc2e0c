import type { Filter } from '../../libs/readstore/src/read-store.port';
import { logRecorder, projected } from '../../test/support/projector';
import { providerKeysProjection } from './provider-keys.projection';

const created = { projectId: 'p1', name: 'aws-prod', providerId: 'prov-aws', prefix: 'AKIA…1234', secretRef: 'vault:pk1:v1', createdAt: '2026-01-01T00:00:00.000Z' };

describe('provider keys read model', () => {
  it('holds a key\'s vault reference, never its secret, moves it on a rotation, and removes the key on delete', async () => {
    const log = logRecorder();
    const k = log.stream('providerkey-pk1', { keyId: 'pk1', projectId: 'p1' });
    const model = await projected(providerKeysProjection);
    await model.handle(k('identity.ProviderKeyCreated.v1', created));
    expect(await model.get('pk1')).toEqual({ id: 'pk1', _position: 1, ...created, rotatedAt: null, lastUsedAt: null });

    await model.handle(k('identity.ProviderKeyRotated.v1', { prefix: 'AKIA…9999', secretRef: 'vault:pk1:v2', previousRef: 'vault:pk1:v1', rotatedAt: '2026-02-01T00:00:00.000Z' }));
    expect(await model.get('pk1')).toMatchObject({ prefix: 'AKIA…9999', secretRef: 'vault:pk1:v2', rotatedAt: '2026-02-01T00:00:00.000Z', createdAt: created.createdAt });
    expect(JSON.stringify(await model.get('pk1'))).not.toContain('vault:pk1:v1');

    await model.handle(k('identity.ProviderKeyDeleted.v1', { secretRef: 'vault:pk1:v2', deletedAt: '2026-03-01T00:00:00.000Z' }));
    expect(await model.all()).toEqual([]);
  });

  it('creates no key from a rotation of one it never saw created, and keeps a deleted key deleted through a replay', async () => {
    const log = logRecorder();
    const lost = log.stream('providerkey-pk9', { keyId: 'pk9', projectId: 'p1' });
    const k = log.stream('providerkey-pk1', { keyId: 'pk1', projectId: 'p1' });
    const events = [
      lost('identity.ProviderKeyRotated.v1', { prefix: 'x', secretRef: 'vault:pk9:v2', previousRef: 'vault:pk9:v1', rotatedAt: '2026-02-01T00:00:00.000Z' }),
      k('identity.ProviderKeyCreated.v1', created),
      k('identity.ProviderKeyDeleted.v1', { secretRef: 'vault:pk1:v1', deletedAt: '2026-03-01T00:00:00.000Z' }),
    ];
    const model = await projected(providerKeysProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect(await model.all()).toEqual([]);
  });

  it('lists a project\'s keys, filtered by provider', async () => {
    const log = logRecorder();
    const model = await projected(providerKeysProjection);
    await model.handle(
      log.stream('providerkey-a', { keyId: 'a', projectId: 'p1' })('identity.ProviderKeyCreated.v1', created),
      log.stream('providerkey-b', { keyId: 'b', projectId: 'p1' })('identity.ProviderKeyCreated.v1', { ...created, providerId: 'prov-gcp' }),
      log.stream('providerkey-c', { keyId: 'c', projectId: 'p2' })('identity.ProviderKeyCreated.v1', { ...created, projectId: 'p2' }),
    );
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1' })).toEqual(['a', 'b']);
    expect(await ids({ projectId: 'p1', providerId: 'prov-gcp' })).toEqual(['b']);
  });
});
