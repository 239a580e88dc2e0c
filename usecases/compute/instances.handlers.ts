import { modeOfScope } from '../../libs/domain/shared/scope';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { instanceDecider, type InstanceRequest } from '../../libs/domain/compute/instance.decider';
import { instanceStream, type InstanceAction } from '../../libs/domain/compute/instance.events';
import type { ProviderKind } from '../../libs/domain/providers/events';
import type { Tag } from '../../libs/domain/shared/tags';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { badRequest } from '../../libs/application/src/errors';
import { pageOf, type ListPage } from '../../libs/application/src/views';
import type { LiveStatus, UtilizationSample } from '../../libs/providers/src/driver.port';
import type { Filter } from '../../libs/readstore/src/read-store.port';
import { instancesProjection, type InstanceDoc } from '../../projections/instances/instances.projection';
import { jobsProjection, type JobDoc } from '../../projections/jobs/jobs.projection';
import { instanceEventsProjection, type InstanceEventDoc } from '../../projections/instance-events/instance-events.projection';
import { providersProjection } from '../../projections/providers/providers.projection';
import { sshKeysProjection } from '../../projections/ssh-keys/ssh-keys.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { requireProjectProvider } from '../providers/project-provider';
import { ownDoc, requestWithItsJob, settleWithJob, written } from '../jobs/job-writes';
import { requestInstanceAction } from './request-instance-action';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** What a GET after an instance write reads: the instance and its activity log. */
const INSTANCE_MODELS = [instancesProjection.name, instanceEventsProjection.name];

type Accepted = { doc: InstanceDoc; jobId: string };
type Found<D> = { items: D[]; total: number };
const SYNC_CONCURRENCY = 16;

export type CreateInstanceInput = InstanceRequest & { providerId: string; region: string; instanceType: string; image?: string };

export class CreateInstance extends Command<Accepted> {
  constructor(readonly projectId: string, readonly input: CreateInstanceInput, readonly ctx: CommandContext) {
    super();
  }
}
export class RequestInstanceAction extends Command<Accepted> {
  constructor(readonly projectId: string, readonly id: string, readonly action: InstanceAction, readonly ctx: CommandContext, readonly viaDelete = false) {
    super();
  }
}
export class UpdateInstance extends Command<InstanceDoc> {
  constructor(readonly projectId: string, readonly id: string, readonly input: { name?: string; tags?: Tag[] }, readonly ctx: CommandContext) {
    super();
  }
}
/** Asks each active instance's driver for its live status and records the ones that differ. */
export class SyncInstanceStatuses extends Command<{ checked: number; changed: number; unreachable: number }> {
  constructor(readonly projectId: string, readonly ctx: CommandContext) {
    super();
  }
}
export class GetInstance extends Query<InstanceDoc> {
  constructor(readonly projectId: string, readonly id: string) {
    super();
  }
}
export class ListInstances extends Query<Found<InstanceDoc>> {
  /** `active`: the active instances across the project's enabled providers (GET /v1/instances/all). */
  constructor(readonly projectId: string, readonly filters: { status?: string; provider?: string; region?: string; active?: boolean }, readonly page: ListPage) {
    super();
  }
}
export class InstanceHistory extends Query<Found<InstanceEventDoc>> {
  constructor(readonly projectId: string, readonly id: string, readonly page: ListPage) {
    super();
  }
}
export class InstanceJobs extends Query<Found<JobDoc>> {
  constructor(readonly projectId: string, readonly id: string, readonly page: ListPage) {
    super();
  }
}
export class InstanceMetrics extends Query<UtilizationSample[]> {
  constructor(readonly projectId: string, readonly id: string, readonly points: number) {
    super();
  }
}

const ownInstance = (ports: PortsOf<'projections'>, projectId: string, id: string) => ownDoc(ports, instancesProjection, projectId, id, 'Instance');
const writtenInstance = (ports: PortsOf<'readBack'>, projectId: string, id: string, position: number | null) => written(ports, instancesProjection, instanceStream(id), id, projectId, position, 'Instance');

/** The active instances across the project's enabled providers. */
async function activeFilter(ports: PortsOf<'projections'>, projectId: string): Promise<Filter> {
  const providers = await (await ports.projections.collection(providersProjection)).find({ filter: { projectId, deletedAt: null, enabled: true } });
  return { projectId, status: 'active', providerId: { $in: providers.items.map((d) => d.id) } };
}

/** A create's lookups (the provider, the SSH key, the catalog entries), shared with its cost estimate (DECISIONS 22). */
export async function instanceLookups(ports: PortsOf<'events' | 'projections'>, projectId: string, input: CreateInstanceInput) {
  const { providerId, region: regionRef, instanceType, image: imageRef, ...request } = input;
  const provider = await requireProjectProvider(ports, projectId, providerId, { requireEnabled: true });
  let sshKeyFingerprint: string | null = null;
  if (request.sshKeyId) {
    const key = await (await ports.projections.collection(sshKeysProjection)).get(request.sshKeyId);
    if (!key || key.projectId !== projectId || key.providerId !== provider.id) {
      throw badRequest([{ detail: `SSH key ${request.sshKeyId} not found for provider ${provider.id}`, source: { pointer: '/sshKeyId' } }]);
    }
    sshKeyFingerprint = key.fingerprint;
  }
  const kind = provider.name as ProviderKind;
  const catalog = await new CatalogValidation(ports).validateCompute({ providerKind: kind, region: regionRef, instanceType, image: imageRef ?? null });
  return { request, provider, kind, catalog, sshKeyFingerprint };
}

/** Looks up what the decision needs (the provider, the catalog entries, the SSH key); the decider derives the rest. */
@CommandHandler(CreateInstance)
export class CreateInstanceHandler implements ICommandHandler<CreateInstance> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, input, ctx }: CreateInstance): Promise<Accepted> {
    const { request, provider, kind, catalog, sshKeyFingerprint } = await instanceLookups(this.ports, projectId, input);
    const instanceId = requestScopedId(ctx, 'instance');
    const jobId = requestScopedId(ctx, 'job');
    const command = { type: 'RequestInstance' as const, instanceId, jobId, projectId, request, provider: { id: provider.id, kind }, catalog, sshKeyFingerprint, now: this.ports.now() };
    // The request, its job and its Idempotency-Key record commit together (one append).
    const written = await requestWithItsJob(this.ports, { streamId: instanceStream(instanceId), decider: instanceDecider, command, newStream: true }, ctx);
    await settleWithJob(this.ports, written, jobId, INSTANCE_MODELS);
    return { doc: await writtenInstance(this.ports, projectId, instanceId, written[0].position), jobId };
  }
}

@CommandHandler(RequestInstanceAction)
export class RequestInstanceActionHandler implements ICommandHandler<RequestInstanceAction> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'consistency' | 'events' | 'logger' | 'projections' | 'readBack' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, id, action, ctx, viaDelete }: RequestInstanceAction): Promise<Accepted> {
    const jobId = requestScopedId(ctx, 'job');
    // The request, its job and its Idempotency-Key record commit together (one append).
    const written = await requestInstanceAction(this.ports, { projectId, instanceId: id, action, jobId, viaDelete }, ctx, Object.values(this.ports.registry.jobResources));
    await settleWithJob(this.ports, written, jobId, INSTANCE_MODELS);
    return { doc: await writtenInstance(this.ports, projectId, id, written[0].position), jobId };
  }

}

@CommandHandler(UpdateInstance)
export class UpdateInstanceHandler implements ICommandHandler<UpdateInstance> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, id, input, ctx }: UpdateInstance): Promise<InstanceDoc> {
    await ownInstance(this.ports, projectId, id);
    const r = await handleCommand(this.ports.events, instanceStream(id), instanceDecider, { type: 'UpdateInstance', ...input, now: this.ports.now() }, ctx);
    await this.ports.waitForProjections(r.position, INSTANCE_MODELS);
    return writtenInstance(this.ports, projectId, id, r.position);
  }
}

/**
 * SYNC_CONCURRENCY driver calls at a time; an unreachable driver leaves its instances as recorded
 * and is counted. Answers once the read model shows what was recorded.
 */
@CommandHandler(SyncInstanceStatuses)
export class SyncInstanceStatusesHandler implements ICommandHandler<SyncInstanceStatuses> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'drivers' | 'events' | 'logger' | 'now' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, ctx }: SyncInstanceStatuses) {
    const { events, drivers, logger } = this.ports;
    // One unsorted, uncounted query: FerretDB decodes every match of a query anyway.
    const { items } = await (await this.ports.projections.collection(instancesProjection)).find({ filter: await activeFilter(this.ports, projectId), withTotal: false });
    const out = { checked: 0, changed: 0, unreachable: 0 };
    let last: number | null = null;
    const queue = items.filter((d) => d.externalId);
    const worker = async () => {
      for (let d = queue.shift(); d; d = queue.shift()) {
        let observed: LiveStatus;
        try {
          observed = await drivers.get(d.providerKind, modeOfScope(d.projectId)).liveStatus(d.externalId!, Object.fromEntries(d.tags.map((t) => [t.key, t.value])));
        } catch (err) {
          out.unreachable++;
          logger.warn({ instanceId: d.id, err: (err as Error).message }, 'live status unavailable');
          continue;
        }
        out.checked++;
        if (observed === d.status) continue;
        const r = await handleCommand(events, instanceStream(d.id), instanceDecider, { type: 'SyncInstanceStatus', observed, now: this.ports.now() }, ctx);
        if (r.position === null) continue;
        out.changed++;
        last = Math.max(last ?? 0, r.position);
      }
    };
    await Promise.all(Array.from({ length: SYNC_CONCURRENCY }, worker));
    await this.ports.waitForProjections(last, INSTANCE_MODELS);
    return out;
  }
}

@QueryHandler(GetInstance)
export class GetInstanceHandler implements IQueryHandler<GetInstance> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, id }: GetInstance): Promise<InstanceDoc> {
    return ownInstance(this.ports, projectId, id);
  }
}

@QueryHandler(ListInstances)
export class ListInstancesHandler implements IQueryHandler<ListInstances> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, filters, page }: ListInstances): Promise<Found<InstanceDoc>> {
    const filter: Filter = filters.active ? await activeFilter(this.ports, projectId) : { projectId, status: filters.status ?? { $ne: 'terminated' } };
    if (filters.provider) filter.providerId = filters.provider;
    // A region by slug, id or site, as creates take it.
    if (filters.region) filter.region = { $in: await new CatalogValidation(this.ports).regionSlugs(filters.region) };
    return (await this.ports.projections.collection(instancesProjection)).find({ filter, ...pageOf(page) });
  }
}

/** The activity log: the instance's events, from their read model (DECISIONS 12: lists never read the event store). */
@QueryHandler(InstanceHistory)
export class InstanceHistoryHandler implements IQueryHandler<InstanceHistory> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, id, page }: InstanceHistory): Promise<Found<InstanceEventDoc>> {
    await ownInstance(this.ports, projectId, id);
    // The log's order is the stream's: the route's `createdAt` arrives as `revision` (its listOf rename; events of one write share a time).
    return (await this.ports.projections.collection(instanceEventsProjection)).find({ filter: { instanceId: id }, ...pageOf(page) });
  }
}

@QueryHandler(InstanceJobs)
export class InstanceJobsHandler implements IQueryHandler<InstanceJobs> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, id, page }: InstanceJobs): Promise<Found<JobDoc>> {
    await ownInstance(this.ports, projectId, id);
    return (await this.ports.projections.collection(jobsProjection)).find({ filter: { instanceId: id }, ...pageOf(page) });
  }
}

@QueryHandler(InstanceMetrics)
export class InstanceMetricsHandler implements IQueryHandler<InstanceMetrics> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'drivers' | 'projections'>) {}

  async execute({ projectId, id, points }: InstanceMetrics): Promise<UtilizationSample[]> {
    const doc = await ownInstance(this.ports, projectId, id);
    return doc.externalId && doc.status === 'active' ? this.ports.drivers.get(doc.providerKind, modeOfScope(doc.projectId)).metrics(doc.externalId, new Date(this.ports.clock.now()), points) : [];
  }
}

export const INSTANCE_HANDLERS = [
  CreateInstanceHandler,
  RequestInstanceActionHandler,
  UpdateInstanceHandler,
  SyncInstanceStatusesHandler,
  GetInstanceHandler,
  ListInstancesHandler,
  InstanceHistoryHandler,
  InstanceJobsHandler,
  InstanceMetricsHandler,
];
