import type { Filter } from '../../libs/readstore/src/read-store.port';
import { gatewayUsageStream, type UsageRecorded } from '../../libs/domain/gateway/events';
import { logRecorder, projected } from '../../test/support/projector';
import { gatewaySpendProjection, gatewayUsageProjection } from './gateway-usage.projection';

const at = (day: number, m = 0) => new Date(Date.UTC(2026, 0, day, 0, m)).toISOString();

/** One upstream attempt's usage, as `recordUsage` records it: its own stream, usage id `<request>:<attempt>`. */
function usageLog() {
  const log = logRecorder();
  return (requestId: string, attempt: number, usage: Partial<UsageRecorded['data']> = {}) => {
    const data: UsageRecorded['data'] = { usageId: `${requestId}:${attempt}`, requestId, attempt, keyId: 'k1', projectId: 'p1', mode: 'live', model: 'gpt-4o', upstream: 'c1', inputTokens: 100, outputTokens: 50, costMicros: 750, latencyMs: 420, outcome: 'completed', day: '2026-01-01', recordedAt: at(1), ...usage };
    return log.stream(gatewayUsageStream(requestId, attempt), {})('gateway.UsageRecorded.v1', data);
  };
}

describe('gateway usage read model: one document per upstream attempt', () => {
  it('keeps each attempt with its tokens, cost and outcome', async () => {
    const usage = usageLog();
    const model = await projected(gatewayUsageProjection);
    await model.handle(usage('r1', 1, { upstream: 'c1', outcome: 'failed', outputTokens: 7, costMicros: 12 }), usage('r1', 2, { upstream: 'simulator', recordedAt: at(1, 1) }));
    expect(await model.all()).toEqual([
      { id: 'r1:1', _position: 1, requestId: 'r1', attempt: 1, keyId: 'k1', projectId: 'p1', mode: 'live', model: 'gpt-4o', upstream: 'c1', inputTokens: 100, outputTokens: 7, costMicros: 12, latencyMs: 420, outcome: 'failed', day: '2026-01-01', createdAt: at(1) },
      { id: 'r1:2', _position: 2, requestId: 'r1', attempt: 2, keyId: 'k1', projectId: 'p1', mode: 'live', model: 'gpt-4o', upstream: 'simulator', inputTokens: 100, outputTokens: 50, costMicros: 750, latencyMs: 420, outcome: 'completed', day: '2026-01-01', createdAt: at(1, 1) },
    ]);
  });

  it('lists a scope\'s usage newest first, by key, model and day', async () => {
    const usage = usageLog();
    const model = await projected(gatewayUsageProjection);
    await model.handle(usage('a', 1, { recordedAt: at(1, 0) }), usage('b', 1, { keyId: 'k2', recordedAt: at(1, 1) }), usage('c', 1, { model: 'claude', day: '2026-01-02', recordedAt: at(2) }), usage('d', 1, { projectId: 'p1:test', recordedAt: at(3) }));
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: -1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1' })).toEqual(['c:1', 'b:1', 'a:1']);
    expect(await ids({ projectId: 'p1', keyId: 'k1' })).toEqual(['c:1', 'a:1']);
    expect(await ids({ projectId: 'p1', model: 'claude', day: '2026-01-02' })).toEqual(['c:1']);
    expect(await ids({ projectId: 'p1:test' })).toEqual(['d:1']);
  });
});

describe('gateway spend read model: the sum of usage per key, model and day', () => {
  it('adds up requests, tokens and cost per (scope, key, model, day)', async () => {
    const usage = usageLog();
    const model = await projected(gatewaySpendProjection);
    await model.handle(
      usage('r1', 1, { inputTokens: 10, outputTokens: 1, costMicros: 100 }),
      usage('r1', 2, { inputTokens: 20, outputTokens: 2, costMicros: 200 }),
      usage('r2', 1, { inputTokens: 5, outputTokens: 5, costMicros: 50, day: '2026-01-02' }),
      usage('r3', 1, { model: 'claude', inputTokens: 1, outputTokens: 1, costMicros: 1 }),
      usage('r4', 1, { keyId: 'k2', inputTokens: 1, outputTokens: 1, costMicros: 1 }),
    );
    expect(await model.get('p1|k1|gpt-4o|2026-01-01')).toEqual({ id: 'p1|k1|gpt-4o|2026-01-01', _position: 2, projectId: 'p1', keyId: 'k1', model: 'gpt-4o', day: '2026-01-01', requests: 2, inputTokens: 30, outputTokens: 3, costMicros: 300 });
    expect(await model.get('p1|k1|gpt-4o|2026-01-02')).toMatchObject({ requests: 1, inputTokens: 5, outputTokens: 5, costMicros: 50 });
    expect((await model.all()).map((d) => d.id)).toEqual(['p1|k1|claude|2026-01-01', 'p1|k1|gpt-4o|2026-01-01', 'p1|k1|gpt-4o|2026-01-02', 'p1|k2|gpt-4o|2026-01-01']);
    const days = (await model.collection.find({ filter: { projectId: 'p1', keyId: 'k1', model: 'gpt-4o' }, sort: [{ field: 'day', direction: -1 }] })).items.map((d) => d.day);
    expect(days).toEqual(['2026-01-02', '2026-01-01']);
  });

  it('adds each usage once when the log hands batches again after a restart, in part or whole', async () => {
    const usage = usageLog();
    const events = [usage('r1', 1, { costMicros: 100 }), usage('r2', 1, { costMicros: 200 }), usage('r3', 1, { costMicros: 300 })];
    const model = await projected(gatewaySpendProjection);
    await model.handle(events[0], events[1]);
    model.restart();
    await model.handle(events[0], events[1]);
    await model.handle(...events);
    model.restart();
    await model.handle(events[2]);
    expect(await model.get('p1|k1|gpt-4o|2026-01-01')).toMatchObject({ requests: 3, costMicros: 600, inputTokens: 300, outputTokens: 150 });
  });
});
