import type { Filter } from '../../libs/readstore/src/read-store.port';
import { createHmac } from 'node:crypto';
import { keyDecider, orgKeyPrefix } from '../../libs/domain/gateway/key.decider';
import { gatewayKeyStream } from '../../libs/domain/gateway/events';
import { logRecorder, projected } from '../../test/support/projector';
import { gatewayKeysProjection } from './gateway-keys.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const secret = `gwk_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const hashOf = (key: string) => createHmac('sha256', 'pepper').update(key).digest('hex');
const mint = (keyId: string, key: string, projectId = 'p1', m = 0) =>
  ({ type: 'MintKey', keyId, projectId, name: `ci-${keyId}`, prefix: orgKeyPrefix(key), keyHash: hashOf(key), mode: 'live', limits: { rpm: 60, monthlySpendCapMicros: 5_000_000 }, now: at(m) }) as const;

describe('gateway keys read model: organization keys and their lookup by hash', () => {
  it('keeps a minted key as its prefix and keyed hash only, never the key', async () => {
    const log = logRecorder();
    const k = log.decided(gatewayKeyStream('k1'), keyDecider);
    const model = await projected(gatewayKeysProjection);
    await model.handle(...k(mint('k1', secret)));
    // The whole document: the key's first 12 characters and its keyed hash, no field holding the key.
    expect(await model.get('k1')).toEqual({ id: 'k1', _position: 1, projectId: 'p1', name: 'ci-k1', prefix: 'gwk_01234567', keyHash: hashOf(secret), mode: 'live', limits: { rpm: 60, monthlySpendCapMicros: 5_000_000 }, revoked: false, revokedAt: null, expiresAt: null, createdAt: at(0) });
    // The gateway authenticates a call by the hash of the key it presents.
    expect((await model.collection.findOne({ keyHash: hashOf(secret) }))?.id).toBe('k1');
    expect(await model.collection.findOne({ keyHash: hashOf(`${secret.slice(0, -1)}f`) })).toBeNull();
  });

  it('changes the limits, then revokes the key (kept, listed as revoked)', async () => {
    const log = logRecorder();
    const k = log.decided(gatewayKeyStream('k1'), keyDecider);
    const model = await projected(gatewayKeysProjection);
    await model.handle(...k(mint('k1', secret)), ...k({ type: 'ChangeKeyLimits', keyId: 'k1', projectId: 'p1', limits: { rpm: null, monthlySpendCapMicros: 1_000 }, now: at(1) }));
    expect(await model.get('k1')).toMatchObject({ limits: { rpm: null, monthlySpendCapMicros: 1_000 }, revoked: false, _position: 2 });
    await model.handle(...k({ type: 'RevokeKey', keyId: 'k1', projectId: 'p1', now: at(2) }));
    expect(await model.get('k1')).toMatchObject({ revoked: true, revokedAt: at(2), limits: { rpm: null, monthlySpendCapMicros: 1_000 }, createdAt: at(0), _position: 3 });
  });

  it('lists a project\'s keys by creation, filtered by revoked, and keeps the two modes of a project apart', async () => {
    const log = logRecorder();
    const model = await projected(gatewayKeysProjection);
    const a = log.decided(gatewayKeyStream('a'), keyDecider);
    const b = log.decided(gatewayKeyStream('b'), keyDecider);
    const t = log.decided(gatewayKeyStream('t'), keyDecider);
    await model.handle(...a(mint('a', `gwk_${'a'.repeat(40)}`, 'p1', 0)), ...b(mint('b', `gwk_${'b'.repeat(40)}`, 'p1', 1)), ...t(mint('t', `gwk_${'c'.repeat(40)}`, 'p1:test', 2)), ...a({ type: 'RevokeKey', keyId: 'a', projectId: 'p1', now: at(3) }));
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: -1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1' })).toEqual(['b', 'a']);
    expect(await ids({ projectId: 'p1', revoked: false })).toEqual(['b']);
    expect(await ids({ projectId: 'p1:test' })).toEqual(['t']);
  });

  it('applies nothing twice when the log hands a batch again after a restart, and creates no key from a revoke alone', async () => {
    const log = logRecorder();
    const k = log.decided(gatewayKeyStream('k1'), keyDecider);
    const events = [
      log.stream(gatewayKeyStream('ghost'), {})('gateway.KeyRevoked.v1', { keyId: 'ghost', projectId: 'p1', revokedAt: at(0) }),
      ...k(mint('k1', secret)),
      ...k({ type: 'ChangeKeyLimits', keyId: 'k1', projectId: 'p1', limits: { rpm: 1, monthlySpendCapMicros: null }, now: at(1) }),
    ];
    const model = await projected(gatewayKeysProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(...events);
    await model.handle(events[1]);
    expect(await model.all()).toEqual(once);
    expect(once.map((d) => [d.id, d.limits.rpm])).toEqual([['k1', 1]]);
  });
});
