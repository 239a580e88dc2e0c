import type { EventStore } from '../../libs/eventstore/src/event-store.port';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { serverDecider } from '../../libs/domain/servers/server.decider';
import { serverStream, type ServerOperation, type ServerSpecData } from '../../libs/domain/servers/server.events';
import { ProviderError, type InstanceSpec } from '../../libs/providers/src/driver.port';
import type { JobDoc } from '../../projections/jobs/jobs.projection';
import type { JobOperationHandler } from '../job-executor/job-executor';
import type { DriverFor } from '../instance-operations/instance-operations';

/** A server is a provider machine too: the driver knows it by the server id. */
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

/**
 * Server side of the job process (job types server.create / server.action): marks the operation
 * begun, calls the driver with the attempt's idempotency token, records the outcome. Each step is
 * an idempotent command, so a re-run after a crash repeats nothing that already happened.
 */
export class ServerOperations implements JobOperationHandler {
  constructor(
    private readonly events: EventStore,
    private readonly driverFor: DriverFor,
  ) {}

  async execute(job: JobDoc, _attempt: number, token: string, ctx: CommandContext): Promise<Record<string, unknown>> {
    const stream = serverStream(job.resourceId);
    const now = () => new Date().toISOString();
    const begun = await handleCommand(this.events, stream, serverDecider, { type: 'BeginServerOperation', jobId: job.id, now: now() }, ctx).catch((err) => {
      throw new ProviderError(`Server ${job.resourceId} cannot be worked on: ${(err as Error).message}`, false);
    });
    const state = begun.state;
    if (state.status === 'none') throw new ProviderError(`Server ${job.resourceId} does not exist`, false);
    if (state.currentJob?.jobId !== job.id) return { skipped: 'superseded by a later operation' };
    const driver = this.driverFor(state.spec.providerKind);
    const spec = driverSpec(state.serverId, state.spec);
    const externalId = state.externalId ?? state.serverId;
    const operation = job.operation as ServerOperation;
    let provisioned: { externalId: string; ipv4: string } | undefined;
    switch (operation) {
      case 'create': {
        const p = await driver.createInstance(token, spec);
        provisioned = { externalId: p.externalId, ipv4: p.ipv4 };
        break;
      }
      case 'power_on':
        await driver.instanceAction(token, externalId, 'start', spec);
        break;
      case 'power_off':
        await driver.instanceAction(token, externalId, 'stop', spec);
        break;
      // A migration moves the machine onto the new plan (already in the spec) and boots it there.
      case 'reboot':
      case 'migrate':
        await driver.instanceAction(token, externalId, 'restart', spec);
        break;
      case 'delete':
        await driver.deleteInstance(token, externalId, spec);
        break;
      default: {
        const never: never = operation;
        throw new ProviderError(`Unknown server operation ${String(never)}`, false);
      }
    }
    await handleCommand(this.events, stream, serverDecider, { type: 'CompleteServerOperation', jobId: job.id, now: now(), provisioned }, ctx);
    return provisioned ? { ...provisioned } : { operation };
  }

  async onFailed(job: JobDoc, error: string, ctx: CommandContext): Promise<void> {
    await handleCommand(this.events, serverStream(job.resourceId), serverDecider, { type: 'FailServerOperation', jobId: job.id, error, now: new Date().toISOString() }, ctx).catch(
      () => undefined,
    );
  }
}
