import type { Filter } from '../../libs/readstore/src/read-store.port';
import { connectionDecider } from '../../libs/domain/gateway/connection.decider';
import { gatewayConnectionStream } from '../../libs/domain/gateway/events';
import { logRecorder, projected } from '../../test/support/projector';
import { gatewayConnectionsProjection } from './gateway-connections.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const add = (connectionId: string, projectId = 'p1', m = 0, kind: 'openai' | 'anthropic' = 'openai') =>
  ({ type: 'AddConnection', connectionId, projectId, name: `up-${connectionId}`, kind, baseUrl: 'https://api.example.com/v1/', secretRef: `vault:gw/${connectionId}`, now: at(m) }) as const;

describe('gateway connections read model: an organization\'s upstreams', () => {
  it('adds a connection unverified with the vault reference only, then records each verification', async () => {
    const log = logRecorder();
    const c = log.decided(gatewayConnectionStream('c1'), connectionDecider);
    const model = await projected(gatewayConnectionsProjection);
    await model.handle(...c(add('c1')));
    // The whole document: the vault's reference of the upstream secret, no field holding a secret.
    expect(await model.get('c1')).toEqual({ id: 'c1', _position: 1, projectId: 'p1', name: 'up-c1', kind: 'openai', baseUrl: 'https://api.example.com/v1', secretRef: 'vault:gw/c1', status: 'unverified', lastVerifiedAt: null, lastError: null, models: null, createdAt: at(0) });

    await model.handle(...c({ type: 'RecordVerification', connectionId: 'c1', projectId: 'p1', ok: false, models: null, error: 'upstream answered 401', now: at(1) }));
    expect(await model.get('c1')).toMatchObject({ status: 'failed', lastVerifiedAt: at(1), lastError: 'upstream answered 401', models: null });
    await model.handle(...c({ type: 'RecordVerification', connectionId: 'c1', projectId: 'p1', ok: true, models: 12, error: null, now: at(2) }));
    expect(await model.get('c1')).toMatchObject({ status: 'verified', lastVerifiedAt: at(2), lastError: null, models: 12, createdAt: at(0), _position: 3 });
  });

  it('removes a deleted connection', async () => {
    const log = logRecorder();
    const c = log.decided(gatewayConnectionStream('c1'), connectionDecider);
    const model = await projected(gatewayConnectionsProjection);
    await model.handle(...c(add('c1')));
    await model.handle(...c({ type: 'DeleteConnection', connectionId: 'c1', projectId: 'p1', now: at(1) }));
    expect(await model.get('c1')).toBeNull();
    expect(await model.all()).toEqual([]);
  });

  it('lists a project\'s connections by creation, filtered by kind and status', async () => {
    const log = logRecorder();
    const model = await projected(gatewayConnectionsProjection);
    const a = log.decided(gatewayConnectionStream('a'), connectionDecider);
    const b = log.decided(gatewayConnectionStream('b'), connectionDecider);
    const o = log.decided(gatewayConnectionStream('o'), connectionDecider);
    await model.handle(...a(add('a', 'p1', 0)), ...b(add('b', 'p1', 1, 'anthropic')), ...o(add('o', 'p2', 2)), ...b({ type: 'RecordVerification', connectionId: 'b', projectId: 'p1', ok: true, models: 3, error: null, now: at(3) }));
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1' })).toEqual(['a', 'b']);
    expect(await ids({ projectId: 'p1', kind: 'anthropic' })).toEqual(['b']);
    expect(await ids({ projectId: 'p1', status: 'unverified' })).toEqual(['a']);
  });

  it('replays a batch after a restart to the same documents, and lets a delete in the batch win over an earlier verification', async () => {
    const log = logRecorder();
    const c = log.decided(gatewayConnectionStream('c1'), connectionDecider);
    const d = log.decided(gatewayConnectionStream('c2'), connectionDecider);
    const events = [
      log.stream(gatewayConnectionStream('ghost'), {})('gateway.ConnectionVerified.v1', { connectionId: 'ghost', projectId: 'p1', ok: true, models: 1, error: null, verifiedAt: at(0) }),
      ...c(add('c1')),
      ...d(add('c2')),
      ...c({ type: 'RecordVerification', connectionId: 'c1', projectId: 'p1', ok: true, models: 4, error: null, now: at(1) }),
      ...d({ type: 'RecordVerification', connectionId: 'c2', projectId: 'p1', ok: true, models: 4, error: null, now: at(1) }),
      ...d({ type: 'DeleteConnection', connectionId: 'c2', projectId: 'p1', now: at(2) }),
    ];
    const model = await projected(gatewayConnectionsProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(...events);
    expect(await model.all()).toEqual(once);
    expect(once.map((x) => [x.id, x.status])).toEqual([['c1', 'verified']]);
  });
});
