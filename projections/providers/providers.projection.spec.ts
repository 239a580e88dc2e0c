import type { Filter } from '../../libs/readstore/src/read-store.port';
import { logRecorder, projected } from '../../test/support/projector';
import { providersProjection } from './providers.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const registered = (over: Record<string, unknown> = {}) => ({ projectId: 'p1', name: 'provider_publiccloud', enabled: true, region: 'us-east-1', credentialsRef: 'vault:c1', createdAt: at(0), ...over });

describe('providers read model', () => {
  it('registers a provider, applies only the changes an update names, and keeps a deleted one flagged', async () => {
    const log = logRecorder();
    const p = log.stream('provider-pr1', { providerId: 'pr1', projectId: 'p1' });
    const model = await projected(providersProjection);
    await model.handle(p('providers.ProviderRegistered.v1', registered()));
    expect(await model.get('pr1')).toEqual({ id: 'pr1', _position: 1, projectId: 'p1', name: 'provider_publiccloud', enabled: true, region: 'us-east-1', credentialsRef: 'vault:c1', createdAt: at(0), updatedAt: at(0), deletedAt: null });

    await model.handle(p('providers.ProviderUpdated.v1', { changes: { enabled: false }, updatedAt: at(1) }));
    expect(await model.get('pr1')).toMatchObject({ enabled: false, region: 'us-east-1', credentialsRef: 'vault:c1', updatedAt: at(1) });
    await model.handle(p('providers.ProviderUpdated.v1', { changes: { region: null, credentialsRef: 'vault:c2' }, updatedAt: at(2) }));
    expect(await model.get('pr1')).toMatchObject({ enabled: false, region: null, credentialsRef: 'vault:c2' });

    await model.handle(p('providers.ProviderDeleted.v1', { deletedAt: at(3) }));
    expect(await model.get('pr1')).toMatchObject({ deletedAt: at(3), updatedAt: at(3), createdAt: at(0) });
  });

  it('lists a project\'s live providers, by kind and by enabled, without the deleted ones', async () => {
    const log = logRecorder();
    const model = await projected(providersProjection);
    const s = (id: string, projectId = 'p1') => log.stream(`provider-${id}`, { providerId: id, projectId });
    await model.handle(
      s('a')('providers.ProviderRegistered.v1', registered()),
      s('b')('providers.ProviderRegistered.v1', registered({ name: 'provider_baremetal', createdAt: at(1) })),
      s('c')('providers.ProviderRegistered.v1', registered({ createdAt: at(2), enabled: false })),
      s('d', 'p2')('providers.ProviderRegistered.v1', registered({ projectId: 'p2' })),
      s('a')('providers.ProviderDeleted.v1', { deletedAt: at(5) }),
    );
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1', deletedAt: null })).toEqual(['b', 'c']);
    expect(await ids({ projectId: 'p1', deletedAt: null, name: 'provider_publiccloud' })).toEqual(['c']);
    expect(await ids({ projectId: 'p1', deletedAt: null, enabled: true })).toEqual(['b']);
  });

  it('creates no provider from an update or delete of one it never saw registered, and undoes no delete on a replay', async () => {
    const log = logRecorder();
    const lost = log.stream('provider-lost', { providerId: 'lost', projectId: 'p1' });
    const p = log.stream('provider-pr1', { providerId: 'pr1', projectId: 'p1' });
    const events = [lost('providers.ProviderUpdated.v1', { changes: { enabled: true }, updatedAt: at(1) }), lost('providers.ProviderDeleted.v1', { deletedAt: at(2) }), p('providers.ProviderRegistered.v1', registered()), p('providers.ProviderDeleted.v1', { deletedAt: at(3) })];
    const model = await projected(providersProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect((await model.all()).map((d) => [d.id, d.deletedAt])).toEqual([['pr1', at(3)]]);
  });
});
