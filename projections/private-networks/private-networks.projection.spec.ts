import type { Filter } from '../../libs/readstore/src/read-store.port';
import { jobResourceDecider } from '../../libs/domain/shared/job-resource';
import { privateNetworks, privateNetworkStream, type PrivateNetworkFields } from '../../libs/domain/networking/private-network.resource';
import { logRecorder, projected } from '../../test/support/projector';
import { privateNetworksProjection } from './private-networks.projection';

/*
 * The private networks read model is the shared job-backed resource projection
 * (libs/subscriptions/src/job-resource-projection.ts) over the private network declaration; this spec
 * is that helper's: create, provider result, an operation with arguments applied on completion
 * (attach: the target joins), failure, import, delete, replays. The other declared job-backed
 * resources (buckets, clusters, databases, …) are the same helper over their own declarations.
 */
const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const decider = jobResourceDecider(privateNetworks);
const fields = { name: 'backend', region: 'us-east-1', cidr: '10.10.0.0/16' };
const create = (id: string, jobId: string, m = 0, more: Partial<typeof fields> = {}) =>
  ({ type: 'CreateResource', id, jobId, projectId: 'p1', providerId: 'prov1', providerKind: 'aws', fields: { ...fields, ...more } as PrivateNetworkFields, now: at(m) }) as const;
const attach = (id: string, jobId: string, targetId: string, m: number) =>
  ({ type: 'RequestOperation', id, jobId, projectId: 'p1', operation: 'attach', args: { targetType: 'instance', targetId, targetRegion: 'us-east-1' }, requestedBy: 'apikey:k1', now: at(m) }) as const;
const request = (id: string, jobId: string, operation: string, m: number) => ({ type: 'RequestOperation', id, jobId, projectId: 'p1', operation, args: {}, requestedBy: 'apikey:k1', now: at(m) }) as const;

describe('private networks read model (the job-backed resource projection)', () => {
  it('writes the requested network creating with the schema\'s defaults, then active with the provider\'s id and attributes', async () => {
    const log = logRecorder();
    const n = log.decided(privateNetworkStream('n1'), decider);
    const model = await projected(privateNetworksProjection);
    await model.handle(...n(create('n1', 'j1')));
    expect(await model.get('n1')).toEqual({
      id: 'n1', _position: 1, projectId: 'p1', providerId: 'prov1', providerKind: 'aws', name: 'backend', region: 'us-east-1', cidr: '10.10.0.0/16', targets: [], tags: [],
      status: 'creating', jobId: 'j1', errorMessage: null, externalId: null, provided: {}, pendingArgs: {}, createdAt: at(0), updatedAt: at(0),
    });
    // A declaration without a working status records no start: the completion follows the request.
    expect(n({ type: 'BeginOperation', jobId: 'j1', now: at(1) })).toEqual([]);
    await model.handle(...n({ type: 'CompleteOperation', jobId: 'j1', now: at(2), result: { externalId: 'vpc-123', attributes: { vpcId: 'vpc-123' } } }));
    expect(await model.get('n1')).toMatchObject({ status: 'active', jobId: 'j1', errorMessage: null, externalId: 'vpc-123', provided: { vpcId: 'vpc-123' }, targets: [], createdAt: at(0), updatedAt: at(2), _position: 2 });
  });

  it('holds an attach\'s arguments while it runs and adds its target when it completes; a failed attach adds none', async () => {
    const log = logRecorder();
    const n = log.decided(privateNetworkStream('n1'), decider);
    const model = await projected(privateNetworksProjection);
    await model.handle(...n(create('n1', 'j1')), ...n({ type: 'CompleteOperation', jobId: 'j1', now: at(1), result: { externalId: 'vpc-1', attributes: { vpcId: 'vpc-1' } } }));
    await model.handle(...n(attach('n1', 'j2', 'i1', 2)));
    expect(await model.get('n1')).toMatchObject({ status: 'attaching', jobId: 'j2', pendingArgs: { targetType: 'instance', targetId: 'i1', targetRegion: 'us-east-1' }, targets: [], updatedAt: at(2) });
    await model.handle(...n({ type: 'CompleteOperation', jobId: 'j2', now: at(3), result: { externalId: 'vpc-1', attributes: { routeTable: 'rt-9' } } }));
    expect(await model.get('n1')).toEqual({
      id: 'n1', _position: 4, projectId: 'p1', providerId: 'prov1', providerKind: 'aws', name: 'backend', region: 'us-east-1', cidr: '10.10.0.0/16', targets: [{ targetType: 'instance', targetId: 'i1' }], tags: [],
      status: 'active', jobId: 'j2', errorMessage: null, externalId: 'vpc-1', provided: { vpcId: 'vpc-1', routeTable: 'rt-9' }, pendingArgs: {}, createdAt: at(0), updatedAt: at(3),
    });

    await model.handle(...n(attach('n1', 'j3', 'i2', 4)), ...n({ type: 'FailOperation', jobId: 'j3', error: 'quota exceeded', now: at(5) }));
    const failed = await model.get('n1');
    expect(failed).toMatchObject({ jobId: 'j3', errorMessage: 'quota exceeded', targets: [{ targetType: 'instance', targetId: 'i1' }], updatedAt: at(5) });
    expect(failed?.status).not.toBe('attaching');
  });

  it('lists a deleting network until its delete completes, then removes it', async () => {
    const log = logRecorder();
    const n = log.decided(privateNetworkStream('n1'), decider);
    const model = await projected(privateNetworksProjection);
    await model.handle(...n(create('n1', 'j1')), ...n({ type: 'CompleteOperation', jobId: 'j1', now: at(1), result: { externalId: 'vpc-1', attributes: {} } }), ...n(request('n1', 'j2', 'delete', 2)));
    expect(await model.get('n1')).toMatchObject({ status: 'deleting', jobId: 'j2' });
    await model.handle(...n({ type: 'CompleteOperation', jobId: 'j2', now: at(3), result: undefined }));
    expect(await model.get('n1')).toBeNull();
    expect(await model.all()).toEqual([]);
  });

  it('records an imported network active with its provider id and attributes and no job', async () => {
    const log = logRecorder();
    const n = log.decided(privateNetworkStream('n9'), decider);
    const model = await projected(privateNetworksProjection);
    await model.handle(...n({ type: 'ImportResource', id: 'n9', projectId: 'p1', providerId: 'prov1', providerKind: 'aws', fields: fields as PrivateNetworkFields, externalId: 'vpc-old', attributes: { vpcId: 'vpc-old' }, now: at(7) }));
    expect(await model.get('n9')).toEqual({
      id: 'n9', _position: 1, projectId: 'p1', providerId: 'prov1', providerKind: 'aws', name: 'backend', region: 'us-east-1', cidr: '10.10.0.0/16', targets: [], tags: [],
      status: 'active', jobId: null, errorMessage: null, externalId: 'vpc-old', provided: { vpcId: 'vpc-old' }, pendingArgs: {}, createdAt: at(7), updatedAt: at(7),
    });
  });

  it('serves the overlap check (a project\'s networks of one region) and the list by status', async () => {
    const log = logRecorder();
    const model = await projected(privateNetworksProjection);
    const a = log.decided(privateNetworkStream('a'), decider);
    const b = log.decided(privateNetworkStream('b'), decider);
    const c = log.decided(privateNetworkStream('c'), decider);
    await model.handle(...a(create('a', 'ja', 0)), ...b(create('b', 'jb', 1, { region: 'eu-west-1', cidr: '10.20.0.0/16' })), ...c(create('c', 'jc', 2, { cidr: '192.168.0.0/24' })), ...a({ type: 'CompleteOperation', jobId: 'ja', now: at(3), result: { externalId: 'x', attributes: {} } }));
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await ids({ projectId: 'p1', region: 'us-east-1' })).toEqual(['a', 'c']);
    expect(await ids({ projectId: 'p1', status: 'creating' })).toEqual(['b', 'c']);
  });

  it('applies a completion once when the log hands the batch again after a restart, and makes nothing of events of a network it never saw created', async () => {
    const log = logRecorder();
    const n = log.decided(privateNetworkStream('n1'), decider);
    const lost = log.stream(privateNetworkStream('lost'), { id: 'lost' });
    const events = [
      lost('networking.PrivateNetworkOperationStarted.v1', { jobId: 'jx', operation: 'create', at: at(0) }),
      ...n(create('n1', 'j1')),
      ...n({ type: 'CompleteOperation', jobId: 'j1', now: at(1), result: { externalId: 'vpc-1', attributes: {} } }),
      ...n(attach('n1', 'j2', 'i1', 2)),
      ...n({ type: 'CompleteOperation', jobId: 'j2', now: at(3), result: { externalId: 'vpc-1', attributes: {} } }),
    ];
    expect(events[0].type).toBe('networking.PrivateNetworkOperationStarted.v1');
    const model = await projected(privateNetworksProjection);
    await model.handle(...events);
    const once = await model.all();
    model.restart();
    await model.handle(...events);
    await model.handle(events[3], events[4]);
    expect(await model.all()).toEqual(once);
    expect(once.map((d) => [d.id, d.status, d.targets])).toEqual([['n1', 'active', [{ targetType: 'instance', targetId: 'i1' }]]]);
  });
});
