import { instanceDecider, type InstanceState, type Provisioned } from '../../libs/domain/compute/instance.decider';
import { instanceStream, type InstanceActionRequested, type InstanceOperation, type InstanceRequested, type InstanceSpecData } from '../../libs/domain/compute/instance.events';
import type { InstanceSpec, ProviderDriver, ProvisionedInstance } from '../../libs/providers/src/driver.port';
import type { DriverCall, DriverTarget, JobBackedResource } from '../../libs/runtime/src/job-ports';

/**
 * What an instance create job records about its operation, in the spirit of spec 2.4's server create
 * payload (plan, OS, site, region, hostname, SSH key): the instance resource and its stream hold the
 * full spec, which the executor reads from the stream. The job document stays small, and every job
 * write (three per create) and every rebuild of the jobs read model costs less: a job document with
 * the whole spec copied in cost FerretDB and PostgreSQL about 1.6 times the CPU to insert.
 */
export function instanceCreatePayload(spec: Pick<InstanceSpecData, 'plan' | 'operatingSystem' | 'image' | 'region' | 'site' | 'hostname' | 'name' | 'workerCount' | 'sshKeyId'>): Record<string, unknown> {
  return {
    name: spec.name,
    plan: spec.plan.slug,
    operatingSystem: spec.operatingSystem?.slug ?? spec.image ?? null,
    region: spec.region,
    site: spec.site,
    hostname: spec.hostname,
    workerCount: spec.workerCount,
    sshKeyId: spec.sshKeyId,
  };
}

const provisioned = (p: ProvisionedInstance): Provisioned => ({ externalId: p.externalId, hostname: p.hostname, ipv4: p.ipv4, ipv6: p.ipv6, sshUser: p.sshUser, sshPort: p.sshPort });
const action =
  (a: 'start' | 'stop' | 'restart'): DriverCall<Provisioned> =>
  async (d, t) => void (await d.instanceAction(t.token, t.externalId, a, t.spec));
/** Reinstall and rescue re-image the same machine; the provider then describes it like a create. */
const reimage =
  (a: 'reinstall' | 'rescue'): DriverCall<Provisioned> =>
  async (d: ProviderDriver, t: DriverTarget) => {
    await d.instanceAction(t.token, t.externalId, a, t.spec);
    return provisioned(await d.createInstance(t.token, t.spec));
  };

/** Instances as a job-backed resource: the lifecycle is INSTANCE_LIFECYCLE; here are its jobs and driver calls. */
export const instanceOperations: JobBackedResource<InstanceOperation, InstanceState, Provisioned> = {
  resourceType: 'instance',
  label: 'Instance',
  readModel: 'instances',
  stream: instanceStream,
  decider: instanceDecider,
  jobOf: (e) => {
    if (e.type === 'compute.InstanceRequested.v1') {
      const { jobId, instanceId, requestedAt, ...spec } = e.data as InstanceRequested['data'];
      return { jobId, projectId: spec.projectId, type: 'instance.create', resourceType: 'instance', resourceId: instanceId, operation: 'create', payload: instanceCreatePayload(spec), enqueuedAt: requestedAt };
    }
    if (e.type !== 'compute.InstanceActionRequested.v1') return null;
    const d = e.data as InstanceActionRequested['data'];
    const payload = { action: d.action, from: d.from, requestedBy: d.requestedBy, ...(d.rescueImage ? { rescueImage: d.rescueImage } : {}) };
    return { jobId: d.jobId, projectId: e.metadata.projectId ?? null, type: d.jobType, resourceType: 'instance', resourceId: d.instanceId, operation: d.action, payload, enqueuedAt: d.requestedAt };
  },
  // An instance whose create never finished has no external id yet: the provider knows it by ours.
  target: (s) => ({ providerKind: s.spec.providerKind, externalId: s.externalId ?? s.id, spec: driverSpec(s.id, s.spec) }),
  calls: {
    create: async (d, t) => provisioned(await d.createInstance(t.token, t.spec)),
    start: action('start'),
    stop: action('stop'),
    restart: action('restart'),
    reinstall: reimage('reinstall'),
    rescue: reimage('rescue'),
    terminate: (d, t) => d.deleteInstance(t.token, t.externalId, t.spec),
  },
  jobResult: (p) => ({ externalId: p.externalId, ipv4: p.ipv4 }),
};

function driverSpec(instanceId: string, spec: InstanceSpecData): InstanceSpec {
  return {
    instanceId,
    name: spec.name,
    region: spec.region,
    instanceType: spec.instanceType,
    image: spec.image,
    diskSizeGb: spec.diskSizeGb,
    workerCount: spec.workerCount,
    spot: spec.spot,
    sshKeys: spec.sshKeyId ? [spec.sshKeyId] : [],
    accelerators: spec.accelerators,
    ports: spec.ports,
    tags: Object.fromEntries(spec.tags.map((t) => [t.key, t.value])),
  };
}
