import { v5 as uuidv5 } from 'uuid';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';
import { appendWithItsJob } from '../../usecases/jobs/with-its-job';
import { batchDecider } from '../../libs/domain/batches/batch.decider';
import { batchStream, type BatchAction, type BatchRequested } from '../../libs/domain/batches/events';
import type { InstanceAction } from '../../libs/domain/compute/instance.events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { serverDecider } from '../../libs/domain/servers/server.decider';
import { serverStream, type ServerPowerAction } from '../../libs/domain/servers/server.events';
import type { SubscriptionHandler } from '../../libs/subscriptions/src/subscription-runner';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { requestInstanceAction } from '../../usecases/compute/request-instance-action';

/** Requests one resource's part of a batch under the given job id; throws DomainError when refused. */
export type BatchItemRequester = (item: { projectId: string; resourceId: string; action: BatchAction; jobId: string }, ctx: CommandContext) => Promise<void>;

const BATCH_NAMESPACE = '6f1c2f7e-3b8a-4a7e-9a51-3c0e5f1b9d42';

/** A batch item's job id is derived from the batch and the resource, so a replayed fan-out reuses it. */
export const batchItemJobId = (batchId: string, resourceId: string) => uuidv5(`${batchId}/${resourceId}`, BATCH_NAMESPACE);

const INSTANCE_ACTIONS: Record<BatchAction, InstanceAction> = { start: 'start', stop: 'stop', reboot: 'restart', delete: 'terminate' };

/** An instance's part of a batch: the one instance-action use case, under the batch item's job id (appended with its job). */
export function instanceBatchRequester(ports: PortsOf<'events' | 'projections' | 'clock'>, jobResources: readonly AnyJobBackedResource[]): BatchItemRequester {
  return async ({ projectId, resourceId, action, jobId }, ctx) => {
    await requestInstanceAction(ports, { projectId, instanceId: resourceId, action: INSTANCE_ACTIONS[action], viaDelete: action === 'delete', jobId }, ctx, jobResources);
  };
}

const SERVER_ACTIONS: Record<Exclude<BatchAction, 'delete'>, ServerPowerAction> = { start: 'power_on', stop: 'power_off', reboot: 'reboot' };

/** A server's part of a batch, appended with its job. */
export function serverBatchRequester(events: EventStore, jobResources: readonly AnyJobBackedResource[]): BatchItemRequester {
  return async ({ projectId, resourceId, action, jobId }, ctx) => {
    const history = await events.readStream(serverStream(resourceId), { maxCount: 1 });
    if (history.length === 0 || (history[0].data as { projectId?: string }).projectId !== projectId) throw new DomainError('NOT_FOUND', 'Server not found');
    const now = new Date().toISOString();
    const requestedBy = String(ctx.metadata.actor);
    const command = action === 'delete' ? { type: 'RequestServerDeletion', jobId, now, requestedBy } : { type: 'RequestServerPowerAction', jobId, action: SERVER_ACTIONS[action], now, requestedBy };
    await appendWithItsJob(events, jobResources, { streamId: serverStream(resourceId), decider: serverDecider, command }, ctx);
  };
}

/**
 * RequestItemsOnBatchRequested: fans a batch out into one request (and so one job) per resource and
 * records each outcome on the batch. Job ids are deterministic and both the resource and the batch
 * deciders ignore a repeat, so a crash mid-fan-out neither loses nor duplicates an item.
 */
export class BatchFanout implements SubscriptionHandler {
  readonly name = 'saga:batch-fanout';
  readonly batchSize = 100;

  constructor(
    private readonly events: EventStore,
    readonly requesters: Record<string, BatchItemRequester>,
  ) {}

  /** Resolves false when the batch held no BatchRequested (its checkpoint may then wait). */
  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let handled = false;
    for (const e of batch) {
      if (e.type !== 'compute.BatchRequested.v1') continue;
      handled = true;
      const d = e.data as BatchRequested['data'];
      const ctx: CommandContext = { metadata: causedBy(e, { projectId: d.projectId, actor: `system:batch:${d.batchId}`, correlationId: e.metadata.correlationId ?? d.batchId }) };
      const requester = this.requesters[d.resourceType];
      for (const resourceId of d.resourceIds) {
        const jobId = batchItemJobId(d.batchId, resourceId);
        let outcome: { jobId: string } | { code: string; error: string };
        try {
          if (!requester) throw new DomainError('UNSUPPORTED_PROVIDER', `Batches of ${d.resourceType} are not supported`);
          await requester({ projectId: d.projectId, resourceId, action: d.action, jobId }, ctx);
          outcome = { jobId };
        } catch (err) {
          if (!(err instanceof DomainError)) throw err; // infrastructure failure: the runner retries the batch
          outcome = { code: err.code, error: err.message };
        }
        await handleCommand(this.events, batchStream(d.batchId), batchDecider, { type: 'RecordBatchItem', resourceId, now: new Date().toISOString(), ...outcome }, ctx);
      }
    }
    return handled;
  }
}
