import { deciderSpec } from '../shared/decider-spec';
import { connectionDecider, type ConnectionEvent } from './connection.decider';
import { customModelDecider, waterfallDecider, type CustomModelEvent } from './org-model.decider';

const now = '2026-11-27T00:00:00.000Z';

describe('gateway connection decider', () => {
  const given = deciderSpec(connectionDecider);
  const add = { type: 'AddConnection' as const, connectionId: 'c1', projectId: 'p1', name: 'up', kind: 'openai' as const, baseUrl: 'https://api.example.com/v1/', secretRef: 'cred_x', now };
  const added: ConnectionEvent = { type: 'gateway.ConnectionAdded.v1', data: { connectionId: 'c1', projectId: 'p1', name: 'up', kind: 'openai', baseUrl: 'https://api.example.com/v1', secretRef: 'cred_x', createdAt: now } };
  it('adds a connection with the reference of its secret, its base URL without a trailing slash', () => given([]).when(add).then([added]));
  it('refuses base URLs that are not http(s), carry credentials or a query', () => {
    for (const baseUrl of ['ftp://x/v1', 'https://u:p@x/v1', 'https://x/v1?key=1', 'not a url']) given([]).when({ ...add, baseUrl }).thenThrows('BAD_REQUEST');
  });
  it('records verifications and deletes only within the organization', () => {
    given([added]).when({ type: 'RecordVerification', connectionId: 'c1', projectId: 'p1', ok: false, models: null, error: 'upstream answered 401', now }).then([{ type: 'gateway.ConnectionVerified.v1', data: { connectionId: 'c1', projectId: 'p1', ok: false, models: null, error: 'upstream answered 401', verifiedAt: now } }]);
    given([added]).when({ type: 'DeleteConnection', connectionId: 'c1', projectId: 'p2', now }).thenThrows('NOT_FOUND');
    given([added, { type: 'gateway.ConnectionDeleted.v1', data: { connectionId: 'c1', projectId: 'p1', deletedAt: now } }]).when({ type: 'RecordVerification', connectionId: 'c1', projectId: 'p1', ok: true, models: 1, error: null, now }).thenThrows('NOT_FOUND');
  });
});

describe('gateway custom model and waterfall deciders', () => {
  const given = deciderSpec(customModelDecider);
  const fields = { connectionId: 'c1', upstreamModel: 'gpt-x', price: { inputPerMTok: 1, outputPerMTok: 2 }, maxOutputTokens: 100 };
  const created: CustomModelEvent = { type: 'gateway.CustomModelCreated.v1', data: { projectId: 'p1', alias: 'team', ...fields, createdAt: now } };
  it('creates an alias once; never over a public model; refuses bad aliases and prices', () => {
    given([]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'team', fields, now }).then([created]);
    given([created]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'team', fields, now }).thenThrows('CONFLICT');
    given([]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'sim-mini', fields, now }).thenThrows('CONFLICT');
    given([]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'a/b', fields, now }).thenThrows('BAD_REQUEST');
    given([]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'team', fields: { ...fields, price: { inputPerMTok: -1, outputPerMTok: 0 } }, now }).thenThrows('BAD_REQUEST');
  });
  it('changes and deletes only an active model of the organization', () => {
    given([created]).when({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'team', changes: { maxOutputTokens: 5 }, now }).then([{ type: 'gateway.CustomModelChanged.v1', data: { projectId: 'p1', alias: 'team', changes: { maxOutputTokens: 5 }, changedAt: now } }]);
    given([created]).when({ type: 'DeleteCustomModel', projectId: 'p2', alias: 'team', now }).thenThrows('NOT_FOUND');
  });
  it('a local model is served by a connection of the organization: never the simulator, on creation or change; a model keeps its kind', () => {
    const local = { ...fields, kind: 'local' as const, upstreamModel: 'llama-3-8b', price: { inputPerMTok: 0, outputPerMTok: 0 } };
    const localCreated: CustomModelEvent = { type: 'gateway.CustomModelCreated.v1', data: { projectId: 'p1', alias: 'llama', ...local, createdAt: now } };
    given([]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'llama', fields: local, now }).then([localCreated]);
    given([]).when({ type: 'CreateCustomModel', projectId: 'p1', alias: 'llama', fields: { ...local, connectionId: 'simulator' }, now }).thenThrows('BAD_REQUEST');
    given([localCreated]).when({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'llama', changes: { connectionId: 'simulator' }, now }).thenThrows('BAD_REQUEST');
    given([localCreated]).when({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'llama', changes: { connectionId: 'c2' }, now }).then([{ type: 'gateway.CustomModelChanged.v1', data: { projectId: 'p1', alias: 'llama', changes: { connectionId: 'c2' }, changedAt: now } }]);
    given([created]).when({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'team', changes: { kind: 'local' }, now }).thenThrows('BAD_REQUEST');
    // A custom model (events without a kind included) may run on the simulator.
    given([created]).when({ type: 'ChangeCustomModel', projectId: 'p1', alias: 'team', changes: { connectionId: 'simulator' }, now }).then([{ type: 'gateway.CustomModelChanged.v1', data: { projectId: 'p1', alias: 'team', changes: { connectionId: 'simulator' }, changedAt: now } }]);
  });
  it('a waterfall has 1 to 8 steps', () => {
    const w = deciderSpec(waterfallDecider);
    w([]).when({ type: 'SetWaterfall', projectId: 'p1', model: 'team', targets: [], now }).thenThrows('BAD_REQUEST');
    w([]).when({ type: 'SetWaterfall', projectId: 'p1', model: 'team', targets: Array(9).fill({ connectionId: 'simulator', model: 'm' }), now }).thenThrows('BAD_REQUEST');
    w([]).when({ type: 'SetWaterfall', projectId: 'p1', model: 'team', targets: [{ connectionId: 'simulator', model: 'm' }], now }).then([{ type: 'gateway.WaterfallSet.v1', data: { projectId: 'p1', model: 'team', targets: [{ connectionId: 'simulator', model: 'm' }], setAt: now } }]);
  });
});
