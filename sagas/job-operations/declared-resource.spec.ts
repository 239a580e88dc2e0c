import { databases, databaseStream } from '../../libs/domain/databases/database.resource';
import { models, modelStream } from '../../libs/domain/models/model.resource';
import { privateNetworks, privateNetworkStream } from '../../libs/domain/networking/private-network.resource';
import { jobResourceDecider, type AnyJobResource, type JobResourceCommand } from '../../libs/domain/shared/job-resource';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { SimulatorDriver } from '../../libs/providers/src/simulator/simulator-driver';
import { logRecorder } from '../../test/support/projector';
import { declaredJobResource } from './declared-resource';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();

/** A declared resource's events as its decider records them, and its state folded from them (what the job process reads). */
function resourceLog(resource: AnyJobResource, stream: string) {
  const decider = jobResourceDecider(resource);
  const decide = logRecorder().decided(stream, decider);
  let state = decider.initialState();
  return (command: JobResourceCommand<Record<string, unknown>>, metadata: Record<string, unknown> = {}) => {
    const recorded = decide(command).map((e): RecordedEvent => ({ ...e, metadata: { ...e.metadata, ...metadata } }));
    for (const e of recorded) state = decider.evolve(state, { type: e.type, data: e.data as Record<string, unknown> });
    return { events: recorded, state: state as never };
  };
}

describe('declared job-backed resources: the job a request starts and the provider call it makes', () => {
  it('starts `<kind>.<job name>` for a create, its payload the fields without the internal ones plus the provider', () => {
    const process = declaredJobResource(databases, 'databases');
    const db = resourceLog(databases, databaseStream('d1'));
    const fields = { name: 'orders', engine: 'postgres', version: '16', plan: 'db-small', region: 'us-east-1', credentialRef: 'vault:db/d1' };
    const [requested] = db({ type: 'CreateResource', id: 'd1', jobId: 'j1', projectId: 'p1', providerId: 'prov1', providerKind: 'provider_publiccloud', fields, now: at(0) }).events;
    expect(process.jobOf(requested)).toEqual({
      jobId: 'j1', projectId: 'p1', type: 'database.create', resourceType: 'database', resourceId: 'd1', operation: 'create',
      payload: { name: 'orders', engine: 'postgres', version: '16', plan: 'db-small', region: 'us-east-1', tags: [], username: null, providerId: 'prov1' },
      enqueuedAt: at(0),
    });

    const model = declaredJobResource(models, 'models');
    const m = resourceLog(models, modelStream('m1'));
    const [deploy] = m({ type: 'CreateResource', id: 'm1', jobId: 'j2', projectId: 'p1', providerId: 'prov1', providerKind: 'provider_publiccloud', fields: { clusterId: 'c1', name: 'llm', framework: 'framework_1', modelId: 'meta/llama' }, now: at(1) }).events;
    expect(model.jobOf(deploy)).toMatchObject({ type: 'model.deploy', operation: 'create', resourceType: 'model' });
  });

  it('starts an operation\'s job with its arguments as payload and the project of the request\'s metadata; other events start none', () => {
    const process = declaredJobResource(privateNetworks, 'private_networks');
    const net = resourceLog(privateNetworks, privateNetworkStream('n1'));
    net({ type: 'CreateResource', id: 'n1', jobId: 'j1', projectId: 'p1', providerId: 'prov1', providerKind: 'provider_publiccloud', fields: { name: 'backend', region: 'us-east-1', cidr: '10.0.0.0/16' }, now: at(0) });
    const completed = net({ type: 'CompleteOperation', jobId: 'j1', now: at(1), result: { externalId: 'vpc-1', attributes: {} } }).events;
    const args = { targetType: 'instance', targetId: 'i1', targetRegion: 'us-east-1' };
    const [attach] = net({ type: 'RequestOperation', id: 'n1', jobId: 'j2', projectId: 'p1', operation: 'attach', args, requestedBy: 'apikey:k1', now: at(2) }, { projectId: 'p1' }).events;
    expect(process.jobOf(attach)).toEqual({ jobId: 'j2', projectId: 'p1', type: 'private-network.attach', resourceType: 'private-network', resourceId: 'n1', operation: 'attach', payload: args, enqueuedAt: at(2) });
    expect(completed.map((e) => process.jobOf(e))).toEqual([null]);
  });

  it('tells the driver the resource\'s region, tags (with an operation\'s `simulate` directive), fields and arguments, under the provider\'s id once known', async () => {
    const process = declaredJobResource(privateNetworks, 'private_networks');
    const net = resourceLog(privateNetworks, privateNetworkStream('n2'));
    const created = net({ type: 'CreateResource', id: 'n2', jobId: 'j1', projectId: 'p1', providerId: 'prov1', providerKind: 'provider_publiccloud', fields: { name: 'backend', region: 'eu-west-1', cidr: '10.1.0.0/16', tags: [{ key: 'simulate', value: 'slow' }, { key: 'team', value: 'ml' }] }, now: at(0) }).state;
    // Before the provider reported its id, it knows the resource by ours.
    expect(process.target(created)).toEqual({ providerKind: 'provider_publiccloud', externalId: 'n2', spec: { resourceType: 'private-network', resourceId: 'n2', region: 'eu-west-1', tags: { simulate: 'slow', team: 'ml' }, attributes: { name: 'backend', region: 'eu-west-1', cidr: '10.1.0.0/16', targets: [], tags: [{ key: 'simulate', value: 'slow' }, { key: 'team', value: 'ml' }] } } });

    const driver = SimulatorDriver.instant('provider_publiccloud');
    const call = jest.spyOn(driver, 'resourceOperation');
    const create = await process.calls.create(driver, { token: 'tok', ...process.target(created) });
    expect(create).toEqual({ externalId: expect.any(String), attributes: expect.any(Object) });
    net({ type: 'CompleteOperation', jobId: 'j1', now: at(1), result: create as never });
    const args = { targetType: 'instance', targetId: 'i1', targetRegion: 'eu-west-1', simulate: 'fail:1' };
    const attaching = net({ type: 'RequestOperation', id: 'n2', jobId: 'j2', projectId: 'p1', operation: 'attach', args, requestedBy: 'apikey:k1', now: at(2) }).state;
    const target = process.target(attaching);
    expect(target).toMatchObject({ externalId: (create as { externalId: string }).externalId, spec: { tags: { simulate: 'slow,fail:1', team: 'ml' }, attributes: { cidr: '10.1.0.0/16', targetId: 'i1', simulate: 'fail:1' } } });
    await process.calls.attach(driver, { token: 'tok', ...target }).catch(() => undefined);
    expect(call.mock.calls.map(([token, c]) => [token, c.operation, c.resourceId])).toEqual([
      ['tok', 'create', 'n2'],
      ['tok', 'attach', (create as { externalId: string }).externalId],
    ]);
    // Only declared operations have a call.
    expect((process.calls as Record<string, unknown>).resize).toBeUndefined();
    expect(process.jobResult({ externalId: 'x', attributes: { host: 'h' } })).toEqual({ externalId: 'x', host: 'h' });
  });
});
