import { serverDecider, type ServerProvisioned, type ServerState } from '../../libs/domain/servers/server.decider';
import {
  serverStream,
  type ServerDeletionRequested,
  type ServerMigrationRequested,
  type ServerOperation,
  type ServerPowerActionRequested,
  type ServerRequested,
  type ServerSpecData,
} from '../../libs/domain/servers/server.events';
import type { InstanceSpec, InstanceAction } from '../../libs/providers/src/driver.port';
import type { DriverCall, JobBackedResource } from '../../libs/runtime/src/job-ports';

const action =
  (a: InstanceAction): DriverCall<ServerProvisioned> =>
  async (d, t) => void (await d.instanceAction(t.token, t.externalId, a, t.spec));

/** Servers as a job-backed resource (job types server.create / server.action): the lifecycle is SERVER_LIFECYCLE. */
export const serverOperations: JobBackedResource<ServerOperation, ServerState, ServerProvisioned> = {
  resourceType: 'server',
  label: 'Server',
  readModel: 'servers',
  stream: serverStream,
  decider: serverDecider,
  jobOf: (e) => {
    if (e.type === 'compute.ServerRequested.v1') {
      const { jobId, serverId, requestedAt, ...spec } = e.data as ServerRequested['data'];
      // Spec 2.4's server create payload; user data stays on the server stream only.
      const payload = { plan: spec.plan.slug, operatingSystem: spec.operatingSystem.slug, site: spec.site, region: spec.region, hostname: spec.hostname, sshKeys: spec.sshKeys, role: spec.role };
      return { jobId, projectId: spec.projectId, type: 'server.create', resourceType: 'server', resourceId: serverId, operation: 'create', payload, enqueuedAt: requestedAt };
    }
    if (e.type !== 'compute.ServerPowerActionRequested.v1' && e.type !== 'compute.ServerMigrationRequested.v1' && e.type !== 'compute.ServerDeletionRequested.v1') return null;
    const d = e.data as (ServerPowerActionRequested | ServerMigrationRequested | ServerDeletionRequested)['data'];
    const operation = 'action' in d ? d.action : 'plan' in d ? 'migrate' : 'delete';
    const payload = { action: operation, from: d.from, requestedBy: d.requestedBy, ...('plan' in d ? { plan: d.plan.slug, fromPlan: d.fromPlan.slug } : {}) };
    return { jobId: d.jobId, projectId: e.metadata.projectId ?? null, type: 'server.action', resourceType: 'server', resourceId: d.serverId, operation, payload, enqueuedAt: d.requestedAt };
  },
  // A server is a provider machine too: the driver knows it by the server id until it has its own.
  target: (s) => ({ providerKind: s.spec.providerKind, externalId: s.externalId ?? s.id, spec: driverSpec(s.id, s.spec) }),
  calls: {
    create: async (d, t) => {
      const p = await d.createInstance(t.token, t.spec);
      return { externalId: p.externalId, ipv4: p.ipv4 };
    },
    power_on: action('start'),
    power_off: action('stop'),
    reboot: action('restart'),
    // A migration moves the machine onto the new plan (already in the spec) and boots it there.
    migrate: action('restart'),
    delete: (d, t) => d.deleteInstance(t.token, t.externalId, t.spec),
  },
  jobResult: (p) => ({ ...p }),
};

function driverSpec(serverId: string, spec: ServerSpecData): InstanceSpec {
  return {
    instanceId: serverId,
    name: spec.hostname,
    region: spec.region,
    instanceType: spec.plan.slug,
    image: spec.operatingSystem.slug,
    diskSizeGb: null,
    workerCount: spec.workerCount,
    spot: spec.spot,
    sshKeys: spec.sshKeys,
    accelerators: spec.accelerators,
    ports: [],
    tags: Object.fromEntries(spec.tags.map((t) => [t.key, t.value])),
  };
}
