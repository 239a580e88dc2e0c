import { gatewayModelStream, gatewayWaterfallStream, type CustomModelFields } from '../../libs/domain/gateway/events';
import { customModelDecider, waterfallDecider } from '../../libs/domain/gateway/org-model.decider';
import { logRecorder, projected } from '../../test/support/projector';
import { gatewayCustomModelsProjection, gatewayWaterfallsProjection, orgModelDocId } from './gateway-models.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const fields: CustomModelFields = { connectionId: 'c1', upstreamModel: 'llama-3-70b', price: { inputPerMTok: 0.6, outputPerMTok: 0.8 }, maxOutputTokens: 4096 };
const create = (projectId: string, alias: string, m = 0) => ({ type: 'CreateCustomModel', projectId, alias, fields, now: at(m) }) as const;

describe('gateway custom models read model: an organization\'s models by (scope, alias)', () => {
  it('creates a model under its scope and alias, applies each change to the named fields only', async () => {
    const log = logRecorder();
    const m = log.decided(gatewayModelStream('p1', 'mine'), customModelDecider);
    const model = await projected(gatewayCustomModelsProjection);
    await model.handle(...m(create('p1', 'mine')));
    expect(await model.get(orgModelDocId('p1', 'mine'))).toEqual({ id: 'p1|mine', _position: 1, projectId: 'p1', alias: 'mine', kind: 'custom', ...fields, createdAt: at(0) });

    await model.handle(...m({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'mine', changes: { upstreamModel: 'llama-3.1-70b', maxOutputTokens: 8192 }, now: at(1) }));
    expect(await model.get('p1|mine')).toEqual({ id: 'p1|mine', _position: 2, projectId: 'p1', alias: 'mine', kind: 'custom', ...fields, upstreamModel: 'llama-3.1-70b', maxOutputTokens: 8192, createdAt: at(0) });
  });

  it('removes a deleted model; one created again under the alias starts afresh', async () => {
    const log = logRecorder();
    const m = log.decided(gatewayModelStream('p1', 'mine'), customModelDecider);
    const model = await projected(gatewayCustomModelsProjection);
    await model.handle(...m(create('p1', 'mine')), ...m({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'mine', changes: { maxOutputTokens: 100 }, now: at(1) }));
    await model.handle(...m({ type: 'DeleteCustomModel', projectId: 'p1', alias: 'mine', now: at(2) }));
    expect(await model.get('p1|mine')).toBeNull();
    await model.handle(...m(create('p1', 'mine', 3)));
    expect(await model.get('p1|mine')).toMatchObject({ maxOutputTokens: 4096, createdAt: at(3), _position: 4 });
  });

  it('keeps the same alias of two scopes (live and test) apart and lists a scope\'s models by creation', async () => {
    const log = logRecorder();
    const model = await projected(gatewayCustomModelsProjection);
    await model.handle(
      ...log.decided(gatewayModelStream('p1', 'b'), customModelDecider)(create('p1', 'b', 0)),
      ...log.decided(gatewayModelStream('p1:test', 'b'), customModelDecider)(create('p1:test', 'b', 1)),
      ...log.decided(gatewayModelStream('p1', 'a'), customModelDecider)(create('p1', 'a', 2)),
    );
    const aliases = async (projectId: string) => (await model.collection.find({ filter: { projectId }, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await aliases('p1')).toEqual(['p1|b', 'p1|a']);
    expect(await aliases('p1:test')).toEqual(['p1:test|b']);
  });

  it('applies a change once when the log hands it again after a restart, and makes nothing of a change to a model it never saw', async () => {
    const log = logRecorder();
    const m = log.decided(gatewayModelStream('p1', 'mine'), customModelDecider);
    const events = [
      log.stream(gatewayModelStream('p1', 'ghost'), {})('gateway.CustomModelChanged.v1', { projectId: 'p1', alias: 'ghost', changes: { maxOutputTokens: 1 }, changedAt: at(0) }),
      ...m(create('p1', 'mine')),
      ...m({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'mine', changes: { price: { inputPerMTok: 5, outputPerMTok: 6 } }, now: at(1) }),
    ];
    const model = await projected(gatewayCustomModelsProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(...events);
    expect(await model.all()).toEqual(once);
    expect(once.map((d) => [d.id, d.price])).toEqual([['p1|mine', { inputPerMTok: 5, outputPerMTok: 6 }]]);
  });
});

describe('gateway waterfalls read model: the targets set for a model of a scope', () => {
  it('keeps the last waterfall set for each (scope, model), targets in order', async () => {
    const log = logRecorder();
    const w = log.decided(gatewayWaterfallStream('p1', 'gpt-4o'), waterfallDecider);
    const t = log.decided(gatewayWaterfallStream('p1:test', 'gpt-4o'), waterfallDecider);
    const model = await projected(gatewayWaterfallsProjection);
    const first = w({ type: 'SetWaterfall', projectId: 'p1', model: 'gpt-4o', targets: [{ connectionId: 'c1', model: 'gpt-4o' }], now: at(0) });
    const second = w({ type: 'SetWaterfall', projectId: 'p1', model: 'gpt-4o', targets: [{ connectionId: 'c2', model: 'gpt-4o-2024' }, { connectionId: 'simulator', model: 'gpt-4o' }], now: at(1) });
    await model.handle(...first, ...t({ type: 'SetWaterfall', projectId: 'p1:test', model: 'gpt-4o', targets: [{ connectionId: 'simulator', model: 'x' }], now: at(2) }), ...second);
    expect(await model.get(orgModelDocId('p1', 'gpt-4o'))).toEqual({ id: 'p1|gpt-4o', _position: 2, projectId: 'p1', model: 'gpt-4o', targets: [{ connectionId: 'c2', model: 'gpt-4o-2024' }, { connectionId: 'simulator', model: 'gpt-4o' }], setAt: at(1) });
    expect(await model.get('p1:test|gpt-4o')).toMatchObject({ targets: [{ connectionId: 'simulator', model: 'x' }] });
    // The earlier waterfall handed again (a replay after a restart) does not come back.
    model.restart();
    await model.handle(...first);
    expect(await model.get('p1|gpt-4o')).toMatchObject({ setAt: at(1), _position: 2 });
  });
});
