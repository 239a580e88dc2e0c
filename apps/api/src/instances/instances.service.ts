import { v7 as uuidv7 } from 'uuid';
import type { CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { handleCommand } from '../../../../libs/eventstore/src/handle-command';
import { instanceDecider } from '../../../../libs/domain/compute/instance.decider';
import { instanceStream, type InstanceAction } from '../../../../libs/domain/compute/instance.events';
import { jobDecider } from '../../../../libs/domain/jobs/job.decider';
import { JOB_BACKED_RESOURCES } from '../../../../sagas/job-operations/job-backed-resources';
import { resetForRetry } from '../../../../sagas/job-operations/job-operations';
import { jobStream, type JobEvent } from '../../../../libs/domain/jobs/events';
import type { ProviderKind } from '../../../../libs/domain/providers/events';
import { ApiError, badRequest, notFound } from '../../../../libs/http/src/errors';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import { instancesProjection, type InstanceDoc } from '../../../../projections/instances/instances.projection';
import { jobsProjection, type JobDoc } from '../../../../projections/jobs/jobs.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { requireProjectProvider } from '../common/project-provider';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { DomainError } from '../../../../libs/domain/shared/domain-error';
import type { Filter } from '../../../../libs/readstore/src/read-store.port';
import type { LiveStatus } from '../../../../libs/providers/src/driver.port';

const SYNC_CONCURRENCY = 16;

export interface CreateInstanceInput {
  name: string;
  providerId: string;
  region: string;
  instanceType: string;
  workerCount?: number;
  image?: string;
  diskSizeGb?: number;
  sshKeyId?: string;
  spot?: boolean;
  ports?: number[];
  autoStopMinutes?: number;
  accelerators?: string;
  tags?: Record<string, string> | Array<{ key: string; value: string }>;
}

export function normalizeTags(tags: CreateInstanceInput['tags']): Array<{ key: string; value: string }> {
  const list = Array.isArray(tags) ? tags : Object.entries(tags ?? {}).map(([key, value]) => ({ key, value }));
  const byKey = new Map(list.map((t) => [t.key, t.value]));
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => ({ key, value }));
}

const DISPATCHER = 'saga:job-dispatcher';

/** Instance writes (spec 4.1, DECISIONS 6): each accepted request records an event that carries its job id. */
export class InstancesService {
  private readonly catalog: CatalogValidation;

  constructor(private readonly platform: Platform) {
    this.catalog = new CatalogValidation(platform);
  }

  instances() {
    return this.platform.projections.collection(instancesProjection);
  }

  jobs() {
    return this.platform.projections.collection(jobsProjection);
  }

  async get(projectId: string, id: string): Promise<InstanceDoc> {
    const doc = await (await this.instances()).get(id);
    if (!doc || doc.projectId !== projectId) throw notFound('Instance not found');
    return doc;
  }

  regionSlugs(ref: string): Promise<string[]> {
    return this.catalog.regionSlugs(ref);
  }

  async create(projectId: string, input: CreateInstanceInput, ctx: CommandContext, pointerPrefix = ''): Promise<{ doc: InstanceDoc; jobId: string }> {
    const provider = await requireProjectProvider(this.platform, projectId, input.providerId, { requireEnabled: true });
    let sshKeyFingerprint: string | null = null;
    if (input.sshKeyId) {
      const key = await (await this.platform.projections.collection(sshKeysProjection)).get(input.sshKeyId);
      if (!key || key.projectId !== projectId || key.providerId !== provider.id) {
        throw badRequest([{ detail: `SSH key ${input.sshKeyId} not found for provider ${provider.id}`, source: { pointer: `${pointerPrefix}/sshKeyId` } }]);
      }
      sshKeyFingerprint = key.fingerprint;
    }
    const kind = provider.name as ProviderKind;
    const { plan, region, image } = await this.catalog.validateCompute({ providerKind: kind, region: input.region, instanceType: input.instanceType, image: input.image ?? null });
    const instanceId = uuidv7();
    const jobId = uuidv7();
    const request = { ...input, tags: normalizeTags(input.tags) };
    const result = await handleCommand(this.platform.events, instanceStream(instanceId), instanceDecider, { type: 'RequestInstance', instanceId, jobId, projectId, request, provider: { id: provider.id, kind }, catalog: { plan, region, image }, sshKeyFingerprint, now: this.platform.now() }, ctx, { newStream: true });
    await this.settle(result.position, jobId);
    return { doc: await this.written(projectId, instanceId, result.position), jobId };
  }

  async act(projectId: string, id: string, action: InstanceAction, ctx: CommandContext, opts: { viaDelete?: boolean } = {}): Promise<{ doc: InstanceDoc; jobId: string }> {
    await this.get(projectId, id);
    const jobId = uuidv7();
    const result = await handleCommand(
      this.platform.events,
      instanceStream(id),
      instanceDecider,
      {
        type: 'RequestInstanceAction',
        jobId,
        action,
        viaDelete: opts.viaDelete,
        now: new Date().toISOString(),
        requestedBy: String(ctx.metadata.actor ?? 'unknown'),
      },
      ctx,
    );
    await this.settle(result.position, jobId);
    return { doc: await this.written(projectId, id, result.position), jobId };
  }

  async update(projectId: string, id: string, input: { name?: string; tags?: CreateInstanceInput['tags'] }, ctx: CommandContext): Promise<InstanceDoc> {
    await this.get(projectId, id);
    const result = await handleCommand(
      this.platform.events,
      instanceStream(id),
      instanceDecider,
      { type: 'UpdateInstance', name: input.name, tags: input.tags === undefined ? undefined : normalizeTags(input.tags), now: new Date().toISOString() },
      ctx,
    );
    await this.platform.waitForProjections(result.position, ['instances']);
    return this.written(projectId, id, result.position);
  }

  async retryJob(projectId: string | null, jobId: string, ctx: CommandContext): Promise<JobDoc> {
    const job = await (await this.jobs()).get(jobId);
    if (!job || (projectId !== null && job.projectId !== projectId)) throw notFound('Job not found');
    // Checked on the job's own stream (the read model may lag a failure or another retry).
    const current = (await this.platform.events.readStream(jobStream(jobId))).reduce((st, e) => jobDecider.evolve(st, e as unknown as JobEvent), jobDecider.initialState());
    if (current.status !== 'failed') throw new DomainError('RETRY_FAILED', `Only a failed job can be retried; this one is ${current.status}`);
    // DECISIONS 7: the resource the job acts on goes back to the status its operation starts from,
    // before the job is re-opened: the executor may begin the next attempt as soon as JobRetried is
    // appended, and that attempt must find the resource reset. The resource deciders act only out of
    // the `error` the failed job left, so a refused or repeated retry resets nothing.
    const resource = JOB_BACKED_RESOURCES[job.resourceType];
    const resetAt = resource ? await resetForRetry(this.platform.events, resource, job, this.platform.now(), ctx) : null;
    const resourceProjection = resource?.readModel ?? null;
    const retried = await handleCommand(this.platform.events, jobStream(jobId), jobDecider, { type: 'RetryJob', now: new Date().toISOString() }, ctx);
    const position = Math.max(retried.position ?? 0, resetAt ?? 0) || null;
    await this.platform.waitForProjections(position, resourceProjection ? [resourceProjection, 'jobs'] : ['jobs']);
    return (await this.platform.readBack(jobsProjection, jobStream(jobId), jobId, retried.position))!;
  }

  /**
   * Asks each matching instance's driver for its live status and records the ones that differ
   * (compute.InstanceStatusSynced.v1), then waits until the read model shows them. SYNC_CONCURRENCY
   * driver calls at a time; an unreachable driver leaves its instances as recorded and is counted.
   */
  async syncLiveStatuses(filter: Filter, ctx: CommandContext): Promise<{ checked: number; changed: number; unreachable: number }> {
    // One unsorted, uncounted query: FerretDB decodes every match of a query anyway, so pages would
    // repeat that work once per page.
    const { items: docs } = await (await this.instances()).find({ filter, withTotal: false });
    const out = { checked: 0, changed: 0, unreachable: 0 };
    let last: number | null = null;
    const queue = docs.filter((d) => d.externalId);
    const worker = async () => {
      for (let d = queue.shift(); d; d = queue.shift()) {
        let observed: LiveStatus;
        try {
          observed = await this.platform.drivers.get(d.providerKind as ProviderKind).liveStatus(d.externalId!, Object.fromEntries(d.tags.map((t) => [t.key, t.value])));
        } catch (err) {
          out.unreachable++;
          this.platform.logger.warn({ instanceId: d.id, err: (err as Error).message }, 'live status unavailable');
          continue;
        }
        out.checked++;
        if (observed === d.status) continue;
        const r = await handleCommand(this.platform.events, instanceStream(d.id), instanceDecider, { type: 'SyncInstanceStatus', observed, now: new Date().toISOString() }, ctx);
        if (r.events.length > 0) {
          out.changed++;
          if (r.position !== null && (last === null || r.position > last)) last = r.position;
        }
      }
    };
    await Promise.all(Array.from({ length: SYNC_CONCURRENCY }, worker));
    await this.platform.waitForProjections(last, ['instances']);
    return out;
  }

  /**
   * The instance as of a write we just made: from the read model once it has caught up, else folded
   * from the instance's own stream, so an accepted write never answers 404 or stale data.
   */
  private async written(projectId: string, id: string, position: number | null): Promise<InstanceDoc> {
    const doc = await this.platform.readBack(instancesProjection, instanceStream(id), id, position);
    if (!doc || doc.projectId !== projectId) throw notFound('Instance not found');
    return doc;
  }

  /** Read-your-writes for the instance and for the job the dispatcher creates from its event. */
  private async settle(position: number | null, jobId: string): Promise<void> {
    if (position === null) return;
    const ok = await this.platform.waitForProjections(position, ['instances']);
    const jobReady = ok && (await this.platform.consistency.waitForSaga(DISPATCHER, position, jobStream(jobId), ['jobs']));
    if (!jobReady) this.platform.logger.warn({ jobId, position }, 'read models did not catch up within the consistency wait');
  }
}

export function invalidAction(action: string): ApiError {
  return new ApiError('BAD_REQUEST', `Unknown action ${action}`);
}
