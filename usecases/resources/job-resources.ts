import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Capability } from '../../libs/domain/providers/capabilities';
import { priceOf, type Priceable } from '../../libs/domain/catalog/pricing';
import { jobResourceDecider, type JobResource } from '../../libs/domain/shared/job-resource';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { listResult, pageOf, toResource, type ListQuery, type ListResult, type Resource } from '../../libs/application/src/views';
import type { ListShape } from '../../libs/readstore/src/list-shapes';
import type { Filter } from '../../libs/readstore/src/read-store.port';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';
import type { ProviderDoc } from '../../projections/providers/providers.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { InjectPorts } from '../inject-ports';
import { ownDoc, requestedBy, settleJob, written } from '../jobs/job-writes';
import { findProjectProvider } from '../providers/find-provider';
import { requireSameProvider, resolveProvider } from '../providers/resolve-provider';

type AnyObject = z.ZodObject;
type Doc = JobResourceDoc<AnyObject>;

/**
 * What a resource's lookups may use (the stores, drivers and vault; never the runtime): the union of
 * what the declared hooks read, so a hook's dependencies are this type.
 */
export type ResourceLookupPorts = PortsOf<'events' | 'projections' | 'drivers' | 'vault' | 'now'>;

/** What a request's lookups see. A refusal's source names a field of `body` (`/region`); the caller rebases it. */
export interface LookupInput<B> {
  ports: ResourceLookupPorts;
  projectId: string;
  provider: ProviderDoc;
  body: B;
}

/** An operation's lookups (an action, `update`, or a delete's): the args the request records (by default the body). */
export interface OperationLookups {
  prepare?: (input: LookupInput<Record<string, unknown>> & { doc: Doc }) => Promise<Record<string, unknown>>;
}

/**
 * A declared job-backed resource as its use cases see it (DECISIONS 14): the resource, its read model,
 * what its provider must support, and the lookups of its creates and operations. The transports'
 * declarations (routes, paths, summaries) extend it; the use cases read nothing else.
 */
export interface JobResourceUseCase<S extends AnyObject = AnyObject> {
  resource: JobResource<S>;
  projection: DocumentProjection<JobResourceDoc<S>> & { lists: ListShape[] };
  /** The type its answers name, e.g. `volumes`. */
  type: string;
  /** What the provider must support (DECISIONS 14). */
  capability: Capability;
  /** The create's lookups: the fields to record (by default the body with its region resolved in the provider's catalog). */
  prepare?: (input: LookupInput<Record<string, unknown>>) => Promise<z.output<S>>;
  /** The lookups of the operations besides create and delete, by name. */
  actions?: Record<string, OperationLookups>;
  /** The `update` operation's lookups. */
  update?: OperationLookups;
  /**
   * What a create costs (DECISIONS 22): its fields in the priced form of the domain's `priceOf`
   * (the plans they name, a size), which the create records and a cost estimate quotes.
   */
  price?: (input: LookupInput<z.output<S>>) => Promise<Priceable>;
  /** A content-derived id (a bucket: provider and name), so a duplicate lands on the same stream and is refused (409). */
  idFor?: (projectId: string, providerId: string, fields: z.output<S>) => string;
  /**
   * Secrets a create makes (a database password, a cluster credential): they go to the credential
   * vault here, the fields keep only references, and `reveal` is shown once, in the create's answer.
   */
  secrets?: (input: LookupInput<z.output<S>> & { id: string }) => Promise<{ fields?: Partial<z.output<S>>; reveal: Record<string, unknown> }>;
  /**
   * What a create reserves on a stream of its own before the resource's stream is written (a private
   * network's range on its region's ledger), so that racing creates are ordered; it may refuse (409).
   */
  reserve?: (input: LookupInput<z.output<S>> & { id: string; context: CommandContext }) => Promise<void>;
  /** The lookups a delete's rule needs (a cluster: the AI models it serves). */
  prepareDelete?: OperationLookups['prepare'];
  /** The field a region filter matches, for a resource without one `region` (an interconnection's two ends); default `region`. */
  regionField?: string;
}

/** The answer's attributes: the fields, what the provider reported, and the lifecycle (the shown keys of `jobResourceAttributes`). */
export function jobResourceAttributeKeys(r: JobResource): string[] {
  const internal = new Set(r.internal ?? []);
  return [...new Set([...Object.keys(r.schema.shape).filter((k) => !internal.has(k)), ...Object.keys(r.provided?.shape ?? {}), 'status', 'providerId', 'errorMessage', 'createdAt', 'updatedAt'])];
}

const keysOf = new WeakMap<JobResource, string[]>();
function toResourceOf(decl: JobResourceUseCase, doc: Doc): Resource<Record<string, unknown>> {
  const keys = keysOf.get(decl.resource) ?? keysOf.set(decl.resource, jobResourceAttributeKeys(decl.resource)).get(decl.resource)!;
  const merged: Record<string, unknown> = { ...doc.provided, ...doc };
  return toResource(decl.type, doc.id, Object.fromEntries(keys.map((k) => [k, merged[k] ?? null])));
}

/** A record (an import's answer, the records list): the resource with the provider's id. */
const recordOf = (decl: JobResourceUseCase, doc: Doc) => {
  const r = toResourceOf(decl, doc);
  return { ...r, attributes: { ...r.attributes, externalId: doc.externalId } };
};

// ---------------------------------------------------------------- commands and queries
/** Who asks: the data scope (project and mode) it acts in, and the provider it names, if any. */
interface Call {
  projectId: string;
  providerId?: string;
}
export type Accepted = { data: Resource<Record<string, unknown>>; jobId: string };

export class CreateJobResource extends Command<Accepted> {
  constructor(
    readonly decl: JobResourceUseCase,
    readonly call: Call & { body: Record<string, unknown>; context: CommandContext },
  ) {
    super();
  }
}

export class RequestResourceOperation extends Command<Accepted> {
  constructor(
    readonly decl: JobResourceUseCase,
    readonly call: Call & { id: string; operation: string; body: Record<string, unknown>; context: CommandContext },
  ) {
    super();
  }
}

export class ImportJobResource extends Command<Resource<Record<string, unknown>>> {
  constructor(
    readonly decl: JobResourceUseCase,
    readonly call: Call & { body: Record<string, unknown>; context: CommandContext },
  ) {
    super();
  }
}

export class GetJobResource extends Query<Resource<Record<string, unknown>>> {
  constructor(
    readonly decl: JobResourceUseCase,
    readonly call: Call & { id: string },
  ) {
    super();
  }
}

export class ListJobResources extends Query<ListResult<object>> {
  constructor(
    readonly decl: JobResourceUseCase,
    /** `scope`: fields every listed resource has (a parent's id, e.g. a network's attachments). */
    readonly call: Call & { list: ListQuery<{ status?: string; region?: string; providerId?: string }>; records?: boolean; scope?: Record<string, string> },
  ) {
    super();
  }
}

const deciders = new WeakMap<JobResource, ReturnType<typeof jobResourceDecider>>();
const deciderOf = (r: JobResource) => deciders.get(r) ?? deciders.set(r, jobResourceDecider(r)).get(r)!;

type WritePorts = ResourceLookupPorts & PortsOf<'consistency' | 'logger' | 'readBack' | 'waitForProjections'>;

@CommandHandler(CreateJobResource)
export class CreateJobResourceHandler implements ICommandHandler<CreateJobResource> {
  constructor(@InjectPorts() private readonly ports: WritePorts) {}

  async execute({ decl, call }: CreateJobResource): Promise<Accepted> {
    const { resource, projection } = decl;
    const { projectId } = call;
    const { provider, input, fields: prepared, price } = await jobResourceCreateLookups(this.ports, decl, projectId, call.providerId, call.body);
    let fields = prepared;
    const id = decl.idFor ? decl.idFor(projectId, provider.id, fields) : requestScopedId(call.context, 'resource');
    if (decl.reserve) await decl.reserve({ ...input, body: fields, id, context: call.context });
    // A re-run after a crash (DECISIONS 5) finds the secret its first run kept and showed: it makes none, and shows none.
    const secret = decl.secrets && !call.context.metadata.recovering ? await decl.secrets({ ...input, body: fields, id }) : null;
    if (secret?.fields) fields = { ...fields, ...secret.fields };
    const jobId = requestScopedId(call.context, 'job');
    const command = { type: 'CreateResource' as const, id, jobId, projectId, providerId: provider.id, providerKind: provider.name, fields, price: price ? priceOf(price) : undefined, now: this.ports.now() };
    const r = await handleCommand(this.ports.events, resource.stream(id), deciderOf(resource), command, call.context, { newStream: !decl.idFor });
    await settleJob(this.ports, r.position, jobId, projection.name);
    const data = toResourceOf(decl, await written(this.ports, projection as DocumentProjection<Doc>, resource.stream(id), id, projectId, r.position, resource.label));
    // Shown this once; afterwards only the vault holds it.
    if (secret) data.attributes = { ...data.attributes, ...secret.reveal };
    return { data, jobId };
  }
}

/**
 * A create's lookups, shared by the create and its cost estimate (DECISIONS 22): the provider (404,
 * 400 UNSUPPORTED_PROVIDER), the fields it records (the catalog's 422s) and what prices them.
 */
export async function jobResourceCreateLookups(ports: ResourceLookupPorts, decl: JobResourceUseCase, projectId: string, providerId: string | undefined, body: Record<string, unknown>) {
  const provider = await resolveProvider(ports, projectId, providerId, decl.capability);
  const input = { ports, projectId, provider, body };
  const fields = decl.prepare ? await decl.prepare(input) : await withRegion(input);
  const price = decl.price ? await decl.price({ ...input, body: fields }) : null;
  return { provider, input, fields, price };
}

/** The default create lookup: the region (when the resource has one) resolved in the provider's catalog. */
async function withRegion({ ports, provider, body }: LookupInput<Record<string, unknown>>): Promise<Record<string, unknown>> {
  if (typeof body.region !== 'string') return body;
  const region = await new CatalogValidation(ports).resolveRegion(provider.name, body.region);
  return { ...body, region: region.slug };
}

@CommandHandler(RequestResourceOperation)
export class RequestResourceOperationHandler implements ICommandHandler<RequestResourceOperation> {
  constructor(@InjectPorts() private readonly ports: WritePorts) {}

  async execute({ decl, call }: RequestResourceOperation): Promise<Accepted> {
    const { resource, projection } = decl;
    const { projectId } = call;
    const doc = await ownDoc(this.ports, projection as DocumentProjection<Doc>, projectId, call.id, resource.label);
    requireSameProvider(doc.providerId, call.providerId, resource.label);
    // The resource's own provider, even if it has been disabled since (a delete must still run).
    const provider = (await findProjectProvider(this.ports, projectId, doc.providerId)) ?? ({ id: doc.providerId, name: doc.providerKind } as ProviderDoc);
    const prepare = call.operation === 'delete' ? decl.prepareDelete : (call.operation === 'update' ? decl.update : decl.actions?.[call.operation])?.prepare;
    const input = { ports: this.ports, projectId, provider, body: call.body, doc };
    const args = prepare ? await prepare(input) : call.body;
    const jobId = requestScopedId(call.context, 'job');
    const command = { type: 'RequestOperation' as const, id: call.id, jobId, projectId, operation: call.operation, args, requestedBy: requestedBy(call.context), now: this.ports.now() };
    const r = await handleCommand(this.ports.events, resource.stream(call.id), deciderOf(resource), command, call.context);
    await settleJob(this.ports, r.position, jobId, projection.name);
    return { data: toResourceOf(decl, await written(this.ports, projection as DocumentProjection<Doc>, resource.stream(call.id), call.id, projectId, r.position, resource.label)), jobId };
  }
}

/** An import: validated like a create (provider, region, fields), recorded in the created state with the provider's id. */
@CommandHandler(ImportJobResource)
export class ImportJobResourceHandler implements ICommandHandler<ImportJobResource> {
  constructor(@InjectPorts() private readonly ports: ResourceLookupPorts & PortsOf<'readBack' | 'waitForProjections'>) {}

  async execute({ decl, call }: ImportJobResource): Promise<Resource<Record<string, unknown>>> {
    const { resource, projection } = decl;
    const { projectId } = call;
    const provider = await resolveProvider(this.ports, projectId, call.providerId, decl.capability);
    const { externalId, ...body } = call.body as { externalId: string } & Record<string, unknown>;
    const input = { ports: this.ports, projectId, provider, body };
    const fields = decl.prepare ? await decl.prepare(input) : await withRegion(input);
    const id = decl.idFor ? decl.idFor(projectId, provider.id, fields) : requestScopedId(call.context, 'resource');
    if (decl.reserve) await decl.reserve({ ...input, body: fields, id, context: call.context });
    const command = { type: 'ImportResource' as const, id, projectId, providerId: provider.id, providerKind: provider.name, fields, externalId, attributes: {}, now: this.ports.now() };
    const r = await handleCommand(this.ports.events, resource.stream(id), deciderOf(resource), command, call.context, { newStream: !decl.idFor });
    await this.ports.waitForProjections(r.position, [projection.name]);
    return recordOf(decl, await written(this.ports, projection as DocumentProjection<Doc>, resource.stream(id), id, projectId, r.position, resource.label));
  }
}

@QueryHandler(GetJobResource)
export class GetJobResourceHandler implements IQueryHandler<GetJobResource> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ decl, call }: GetJobResource) {
    const doc = await ownDoc(this.ports, decl.projection as DocumentProjection<Doc>, call.projectId, call.id, decl.resource.label);
    requireSameProvider(doc.providerId, call.providerId, decl.resource.label);
    return toResourceOf(decl, doc);
  }
}

@QueryHandler(ListJobResources)
export class ListJobResourcesHandler implements IQueryHandler<ListJobResources> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ decl, call }: ListJobResources): Promise<ListResult<object>> {
    const { status, region, providerId } = call.list.filters;
    const filter: Filter = { ...call.scope, projectId: call.projectId };
    if (status) filter.status = status;
    if (region) filter[decl.regionField ?? 'region'] = { $in: await new CatalogValidation(this.ports).regionSlugs(region) };
    const provider = providerId ?? call.providerId;
    if (provider) filter.providerId = provider;
    const { items, total } = await (await this.ports.projections.collection(decl.projection as DocumentProjection<Doc>)).find({ filter, ...pageOf(call.list) });
    return listResult(items.map((d) => (call.records ? recordOf(decl, d) : toResourceOf(decl, d))), total);
  }
}

/** The generic handlers every job-backed resource shares (registered once). */
export const JOB_RESOURCE_HANDLERS = [CreateJobResourceHandler, ImportJobResourceHandler, RequestResourceOperationHandler, GetJobResourceHandler, ListJobResourcesHandler];
