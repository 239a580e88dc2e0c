import { deciderSpec } from '../shared/decider-spec';
import type { CatalogImage, CatalogPlan, CatalogRegion } from '../catalog/catalog.types';
import { instanceDecider, type InstanceCommand, type Provisioned } from './instance.decider';
import type { InstanceAction, InstanceEvent, InstanceOperation, InstanceSpecData, InstanceStatus } from './instance.events';
import { instanceSpec } from '../../../test/support/fixtures';

const given = deciderSpec(instanceDecider);
const at = '2026-01-01T00:00:00.000Z';
const spec: InstanceSpecData = instanceSpec({ sshKeyFingerprint: null });
const price = { hourlyCents: 4, monthlyCents: 2920 } as unknown as CatalogPlan['pricing']['USD'];
const plan = {
  id: 'pc-t3-medium',
  slug: 'pc-t3-medium',
  name: 't3.medium',
  category: 'virtual-machine',
  tier: 'standard',
  cpuCores: 2,
  cpuType: 'x86',
  memoryGb: 4,
  diskGb: 80,
  diskType: 'ssd',
  gpuCount: 0,
  gpuType: null,
  bandwidthTb: 1,
  pricing: { USD: price, NGN: price },
  regions: ['us-east-1'],
} as unknown as CatalogPlan;
const region: CatalogRegion = { id: 'use1', slug: 'us-east-1', name: 'US East', city: 'Ashburn', country: 'US', site: 'us-east-1', macroregion: 'us', zones: [] };
const image = { id: 'img', slug: 'pc-ubuntu-24-04-x64-lts', name: 'Ubuntu 24.04 LTS', osSlug: 'ubuntu_24_04_x64_lts', version: '24.04', family: 'ubuntu', minDiskGb: 10 } as CatalogImage;
const create = (request: Partial<Extract<InstanceCommand, { type: 'RequestInstance' }>['request']> = {}, catalog = { plan, region, image }): InstanceCommand => ({
  type: 'RequestInstance',
  instanceId: 'i1',
  jobId: 'j1',
  projectId: 'p1',
  request: { name: 'web', ...request },
  provider: { id: 'prov1', kind: 'provider_publiccloud' },
  catalog,
  sshKeyFingerprint: null,
  now: at,
});

const requested: InstanceEvent = { type: 'compute.InstanceRequested.v1', data: { ...spec, instanceId: 'i1', jobId: 'j1', requestedAt: at } };
const step = (jobId: string) => ({ instanceId: 'i1', jobId, at });
const details: Provisioned = { externalId: 'x1', hostname: 'web', ipv4: '100.64.0.1', ipv6: null, sshUser: 'root', sshPort: 22 };
const provisioning: InstanceEvent = { type: 'compute.InstanceProvisioningStarted.v1', data: step('j1') };
const provisioned: InstanceEvent = { type: 'compute.InstanceProvisioned.v1', data: { ...step('j1'), operation: 'create', ...details } };
const asked = (jobId: string, action: InstanceAction, from: InstanceStatus, to: InstanceStatus, extra: object = {}): InstanceEvent => ({
  type: 'compute.InstanceActionRequested.v1',
  data: { instanceId: 'i1', jobId, jobType: action === 'terminate' ? 'instance.delete' : 'instance.action', action, from, to, requestedAt: at, requestedBy: 'u', ...extra },
});
const failed = (jobId: string, operation: InstanceOperation): InstanceEvent => ({ type: 'compute.InstanceOperationFailed.v1', data: { ...step(jobId), operation, error: 'boom' } });
const retried = (jobId: string, operation: InstanceOperation, status: InstanceStatus): InstanceEvent => ({ type: 'compute.InstanceOperationRetried.v1', data: { ...step(jobId), operation, status } });

const act = (jobId: string, action: InstanceAction, viaDelete = false): InstanceCommand => ({ type: 'RequestInstanceAction', jobId, action, viaDelete, now: at, requestedBy: 'u' });
const begin = (jobId: string): InstanceCommand => ({ type: 'BeginOperation', jobId, now: at });
const complete = (jobId: string, result?: Provisioned): InstanceCommand => ({ type: 'CompleteOperation', jobId, now: at, result });
const fail = (jobId: string): InstanceCommand => ({ type: 'FailOperation', jobId, error: 'boom', now: at });
const retry = (jobId: string): InstanceCommand => ({ type: 'RetryOperation', jobId, now: at });
const sync = (observed: 'active' | 'stopped' | 'error' | 'terminated' | 'unknown'): InstanceCommand => ({ type: 'SyncInstanceStatus', observed, now: at });
const active = [requested, provisioning, provisioned];

describe('instance decider', () => {
  describe('RequestInstance', () => {
    it('records the instance: the request completed from the plan (hostname, sizes, price)', () => {
      given([]).when(create()).then([requested]);
    });

    it('derives the hostname from the name and region, and takes accelerators from the request over the plan', () => {
      const [e] = instanceDecider.decide(create({ name: ' Web Server!', accelerators: 'H100:2', diskSizeGb: 200 }), instanceDecider.initialState());
      expect(e.data).toMatchObject({ hostname: 'web-server.us-east-1', gpus: 2, gpuType: 'H100', diskGb: 200, diskSizeGb: 200 });
      const gpuPlan = { ...plan, gpuCount: 8, gpuType: 'A100' } as CatalogPlan;
      const [g] = instanceDecider.decide(create({ name: '---' }, { plan: gpuPlan, region, image }), instanceDecider.initialState());
      expect(g.data).toMatchObject({ hostname: 'instance.us-east-1', gpus: 8, gpuType: 'A100' });
    });

    it('refuses an id that exists', () => {
      given([requested]).when(create()).thenThrows('CONFLICT');
    });
  });

  it('answers NOT_FOUND for an instance that does not exist', () => {
    for (const c of [act('j2', 'stop'), begin('j1'), retry('j1'), sync('active'), { type: 'UpdateInstance', name: 'x', now: at } as InstanceCommand]) given([]).when(c).thenThrows('NOT_FOUND');
  });

  describe('create job: creating → provisioning → active', () => {
    it('begins provisioning once, for the current job only', () => {
      given([requested]).when(begin('j1')).then([provisioning]);
      given([requested, provisioning]).when(begin('j1')).thenNothingHappens();
      given([requested]).when(begin('other')).thenNothingHappens();
    });

    it('completes with the provisioning details, once; without them the command is refused', () => {
      given([requested, provisioning]).when(complete('j1', details)).then([provisioned]);
      given(active).when(complete('j1', details)).thenNothingHappens();
      given([requested, provisioning]).when(complete('j1')).thenThrows('BAD_REQUEST');
    });
  });

  describe('actions (DECISIONS 6)', () => {
    it('move to their transient status at the request, and refuse the wrong status with INVALID_STATE', () => {
      given(active).when(act('j2', 'stop')).then([asked('j2', 'stop', 'active', 'stopping')]);
      given(active).when(act('j2', 'reinstall')).then([asked('j2', 'reinstall', 'active', 'provisioning')]);
      given(active).when(act('j2', 'rescue')).then([asked('j2', 'rescue', 'active', 'provisioning', { rescueImage: 'rescue-ubuntu_24_04_x64_lts' })]);
      given(active).when(act('j2', 'terminate', true)).then([asked('j2', 'terminate', 'active', 'terminating')]);
      given(active).when(act('j2', 'start')).thenThrows('INVALID_STATE', /Cannot start an instance in status active/);
      given([requested]).when(act('j2', 'stop')).thenThrows('INVALID_STATE');
      given([...active, asked('j2', 'stop', 'active', 'stopping')]).when(act('j2', 'stop')).thenNothingHappens();
    });

    it('refuses to terminate an instance that holds volumes (the handler names them), and lets other actions through', () => {
      given(active).when({ ...act('j2', 'terminate', true), attachedVolumes: ['v1', 'v2'] } as InstanceCommand).thenThrows('INVALID_STATE', /Detach volumes v1, v2/);
      given(active).when({ ...act('j2', 'terminate', true), attachedVolumes: [] } as InstanceCommand).then([asked('j2', 'terminate', 'active', 'terminating')]);
      given(active).when({ ...act('j2', 'stop'), attachedVolumes: ['v1'] } as InstanceCommand).then([asked('j2', 'stop', 'active', 'stopping')]);
    });

    it('stop, then start: stopping → stopped → starting → active', () => {
      const stopping = [...active, asked('j2', 'stop', 'active', 'stopping')];
      given(stopping).when(begin('j2')).thenNothingHappens();
      const stopped: InstanceEvent = { type: 'compute.InstanceStopped.v1', data: step('j2') };
      given(stopping).when(complete('j2')).then([stopped]);
      given([...stopping, stopped]).when(act('j3', 'start')).then([asked('j3', 'start', 'stopped', 'starting')]);
      given([...stopping, stopped, asked('j3', 'start', 'stopped', 'starting')]).when(complete('j3')).then([{ type: 'compute.InstanceStarted.v1', data: { ...step('j3'), operation: 'start' } }]);
    });

    it('restart: stopping at the request, starting when the attempt begins, active when done', () => {
      const stopping = [...active, asked('j2', 'restart', 'active', 'stopping')];
      const rebooting: InstanceEvent = { type: 'compute.InstanceRebooting.v1', data: step('j2') };
      given(stopping).when(begin('j2')).then([rebooting]);
      given([...stopping, rebooting]).when(begin('j2')).thenNothingHappens();
      given([...stopping, rebooting]).when(complete('j2')).then([{ type: 'compute.InstanceStarted.v1', data: { ...step('j2'), operation: 'restart' } }]);
    });

    it('terminate from any live status, never twice', () => {
      given([requested, failed('j1', 'create')]).when(act('j2', 'terminate')).then([{ ...asked('j2', 'terminate', 'error', 'terminating'), data: { ...asked('j2', 'terminate', 'error', 'terminating').data, jobType: 'instance.action' } } as InstanceEvent]);
      const terminating = [...active, asked('j2', 'terminate', 'active', 'terminating')];
      given(terminating).when(act('j3', 'terminate')).thenThrows('INVALID_STATE');
      given(terminating).when(complete('j2')).then([{ type: 'compute.InstanceTerminated.v1', data: step('j2') }]);
    });
  });

  describe('failure and manual retry (DECISIONS 7)', () => {
    it('a failed operation leaves error, once', () => {
      given([requested]).when(fail('j1')).then([failed('j1', 'create')]);
      given([requested, failed('j1', 'create')]).when(fail('j1')).thenNothingHappens();
    });

    it('a retry puts the instance back in the status its operation starts from, once', () => {
      given([requested, failed('j1', 'create')]).when(retry('j1')).then([retried('j1', 'create', 'creating')]);
      given([requested, failed('j1', 'create'), retried('j1', 'create', 'creating')]).when(retry('j1')).thenNothingHappens();
      given([...active, asked('j2', 'restart', 'active', 'stopping'), failed('j2', 'restart')]).when(retry('j2')).then([retried('j2', 'restart', 'stopping')]);
      given([...active, asked('j2', 'reinstall', 'active', 'provisioning'), failed('j2', 'reinstall')]).when(retry('j2')).then([retried('j2', 'reinstall', 'provisioning')]);
    });

    it('a retried create that now succeeds brings the instance back', () => {
      given([requested, failed('j1', 'create'), retried('j1', 'create', 'creating')]).when(complete('j1', details)).then([provisioned]);
    });

    it('changes nothing for a superseded job or an instance not in error', () => {
      given([requested, failed('j1', 'create'), asked('j9', 'terminate', 'error', 'terminating')]).when(retry('j1')).thenNothingHappens();
      given(active).when(retry('j1')).thenNothingHappens();
    });
  });

  it('UpdateInstance renames or retags; nothing to change records nothing; a terminated one refuses', () => {
    given(active).when({ type: 'UpdateInstance', name: 'api', now: at }).then([{ type: 'compute.InstanceUpdated.v1', data: { instanceId: 'i1', name: 'api', tags: undefined, at } }]);
    given(active).when({ type: 'UpdateInstance', now: at }).thenNothingHappens();
    given([...active, asked('j2', 'terminate', 'active', 'terminating')]).when({ type: 'UpdateInstance', name: 'x', now: at }).thenThrows('INVALID_STATE');
  });

  describe('live-status sync', () => {
    it('records a settled instance whose provider reports another status', () => {
      given(active).when(sync('stopped')).then([{ type: 'compute.InstanceStatusSynced.v1', data: { instanceId: 'i1', from: 'active', to: 'stopped', at } }]);
      const syncedError: InstanceEvent = { type: 'compute.InstanceStatusSynced.v1', data: { instanceId: 'i1', from: 'active', to: 'error', at } };
      // From a synced error (no job of ours failed), the provider's word brings it back.
      given([...active, syncedError]).when(sync('active')).then([{ type: 'compute.InstanceStatusSynced.v1', data: { instanceId: 'i1', from: 'error', to: 'active', at } }]);
    });

    it('records nothing when the provider agrees, cannot tell, or a job is in flight or failed', () => {
      given(active).when(sync('active')).thenNothingHappens();
      given(active).when(sync('unknown')).thenNothingHappens();
      given([requested]).when(sync('stopped')).thenNothingHappens();
      given([requested, failed('j1', 'create')]).when(sync('active')).thenNothingHappens();
    });
  });
});
