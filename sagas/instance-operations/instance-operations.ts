import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { instanceDecider } from '../../libs/domain/compute/instance.decider';
import { instanceStream, type InstanceOperation, type InstanceSpecData } from '../../libs/domain/compute/instance.events';
import { ProviderError, type InstanceSpec, type ProviderDriver } from '../../libs/providers/src/driver.port';
import type { JobDoc } from '../../projections/jobs/jobs.projection';
import type { JobOperationHandler } from '../job-executor/job-executor';

export type DriverFor = (providerKind: string) => ProviderDriver;

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

/**
 * Instance side of the job process: marks the operation begun, calls the provider with the
 * attempt's idempotency token, and records the outcome on the instance. Every step is an
 * idempotent command, so a re-run after a crash repeats nothing that already happened.
 */
export class InstanceOperations implements JobOperationHandler {
  constructor(
    private readonly events: EventStore,
    private readonly driverFor: DriverFor,
  ) {}

  async execute(job: JobDoc, _attempt: number, token: string, ctx: CommandContext): Promise<Record<string, unknown>> {
    const stream = instanceStream(job.resourceId);
    const now = () => new Date().toISOString();
    const begun = await handleCommand(this.events, stream, instanceDecider, { type: 'BeginInstanceOperation', jobId: job.id, now: now() }, ctx).catch((err) => {
      throw new ProviderError(`Instance ${job.resourceId} cannot be worked on: ${(err as Error).message}`, false);
    });
    const state = begun.state;
    if (state.status === 'none') throw new ProviderError(`Instance ${job.resourceId} does not exist`, false);
    if (state.currentJob?.jobId !== job.id) return { skipped: 'superseded by a later operation' };
    const driver = this.driverFor(state.spec.providerKind);
    const spec = driverSpec(state.instanceId, state.spec);
    // An instance whose create never finished has no external id yet: the provider knows it by ours.
    const externalId = state.externalId ?? state.instanceId;
    const operation = job.operation as InstanceOperation;
    let provisioned;
    switch (operation) {
      case 'create':
      case 'reinstall':
      case 'rescue': {
        // Reinstall and rescue re-image the same machine; the provider then describes it like a create.
        if (operation !== 'create') await driver.instanceAction(token, externalId, operation, spec);
        const p = await driver.createInstance(token, spec);
        provisioned = { externalId: p.externalId, hostname: p.hostname, ipv4: p.ipv4, ipv6: p.ipv6, sshUser: p.sshUser, sshPort: p.sshPort };
        break;
      }
      case 'terminate':
        await driver.deleteInstance(token, externalId, spec);
        break;
      default:
        await driver.instanceAction(token, externalId, operation, spec);
    }
    await handleCommand(this.events, stream, instanceDecider, { type: 'CompleteInstanceOperation', jobId: job.id, now: now(), provisioned }, ctx);
    return provisioned ? { externalId: provisioned.externalId, ipv4: provisioned.ipv4 } : { operation };
  }

  async onFailed(job: JobDoc, error: string, ctx: CommandContext): Promise<void> {
    await handleCommand(this.events, instanceStream(job.resourceId), instanceDecider, { type: 'FailInstanceOperation', jobId: job.id, error, now: new Date().toISOString() }, ctx).catch(
      () => undefined,
    );
  }
}
