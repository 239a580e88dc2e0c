import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { simpleResourceDecider, type SimpleResource } from '../../libs/domain/shared/simple-resource';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { notFound } from '../../libs/application/src/errors';
import { listResult, pageOf, toResource, type ListQuery, type ListResult, type Resource } from '../../libs/application/src/views';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ListShape } from '../../libs/readstore/src/list-shapes';
import type { SimpleResourceDoc } from '../../libs/subscriptions/src/simple-resource-projection';
import { InjectPorts } from '../inject-ports';

type AnyObject = z.ZodObject;
/** What a simple resource's use cases do: read it, list it, create it, delete it. */
export type SimpleOp = 'list' | 'get' | 'create' | 'delete';

/** What a create's lookups and a scope's check may use (never the runtime). */
export type SimpleLookupPorts = PortsOf<'events' | 'projections'>;

/** What a create's lookups see: the body and the scope (a refusal's source names a field of the body; the caller rebases it). */
export interface CreateInput<B, Q> {
  ports: SimpleLookupPorts;
  projectId: string;
  body: B;
  query: Q;
}

/**
 * A simple resource as its use cases see it: the resource, its read model, the type its answers
 * name, the scope every call is checked against, and the lookups its create needs. The transports'
 * declarations (routes, permissions, summaries) extend it.
 */
export interface SimpleResourceUseCase<S extends AnyObject, B = z.output<S>, Q = Record<string, unknown>> {
  resource: SimpleResource<S>;
  /** Its read model; lists sort by what its list shape declares. */
  projection: DocumentProjection<SimpleResourceDoc<S>> & { lists: ListShape[] };
  /** The type its answers name, e.g. `instance-templates`. */
  type: string;
  /** The check that a call's scope (e.g. `providerId`) names something of the project. */
  scope?: { check: (ports: SimpleLookupPorts, projectId: string, query: Q, op: SimpleOp) => Promise<void> };
  /** The lookups of a create: the id to use and the fields to record. By default a new id and the body. */
  prepare?: (input: CreateInput<B, Q>) => Promise<{ id?: string; fields: z.output<S> }>;
}
type AnyUseCase = SimpleResourceUseCase<AnyObject, unknown, Record<string, unknown>>;

/** The attribute names a simple resource's answers show: its fields and its creation time. */
const keysOf = new WeakMap<SimpleResource, string[]>();
function toResourceOf(decl: AnyUseCase, doc: SimpleResourceDoc<AnyObject>): Resource<Record<string, unknown>> {
  const keys = keysOf.get(decl.resource) ?? keysOf.set(decl.resource, [...new Set([...Object.keys(decl.resource.schema.shape), 'createdAt'])]).get(decl.resource)!;
  return toResource(decl.type, doc.id, Object.fromEntries(keys.map((k) => [k, (doc as Record<string, unknown>)[k]])));
}

// ---------------------------------------------------------------- commands and queries
/** Who asks (the data scope it acts in) and the call's scope (its scoping parameters). */
interface Call {
  projectId: string;
  query: Record<string, unknown>;
}

export class CreateSimpleResource extends Command<Resource<Record<string, unknown>>> {
  constructor(
    readonly decl: AnyUseCase,
    readonly call: Call & { body: unknown; context: CommandContext },
  ) {
    super();
  }
}

export class DeleteSimpleResource extends Command<void> {
  constructor(
    readonly decl: AnyUseCase,
    readonly call: Call & { id: string; context: CommandContext },
  ) {
    super();
  }
}

export class GetSimpleResource extends Query<Resource<Record<string, unknown>>> {
  constructor(
    readonly decl: AnyUseCase,
    readonly call: Call & { id: string },
  ) {
    super();
  }
}

export class ListSimpleResources extends Query<ListResult<object>> {
  constructor(
    readonly decl: AnyUseCase,
    readonly call: Call & { list: ListQuery<unknown> },
  ) {
    super();
  }
}

const deciders = new WeakMap<SimpleResource, ReturnType<typeof simpleResourceDecider>>();
const deciderOf = (r: SimpleResource) => deciders.get(r) ?? deciders.set(r, simpleResourceDecider(r)).get(r)!;

/** The project's document `id`, within the call's scope, else 404. */
async function findOwned(ports: PortsOf<'projections'>, decl: AnyUseCase, call: Call & { id: string }): Promise<SimpleResourceDoc<AnyObject>> {
  const doc = await (await ports.projections.collection(decl.projection)).get(call.id);
  const inScope = doc && doc.projectId === call.projectId && Object.entries(call.query).every(([k, v]) => (doc as Record<string, unknown>)[k] === v);
  if (!doc || !inScope) throw notFound(`${decl.resource.label} not found`);
  return doc;
}

@CommandHandler(CreateSimpleResource)
export class CreateSimpleResourceHandler implements ICommandHandler<CreateSimpleResource> {
  constructor(@InjectPorts() private readonly ports: SimpleLookupPorts & PortsOf<'now' | 'readBack' | 'waitForProjections'>) {}

  async execute({ decl, call }: CreateSimpleResource): Promise<Resource<Record<string, unknown>>> {
    const { projectId } = call;
    await decl.scope?.check(this.ports, projectId, call.query, 'create');
    const input = { ports: this.ports, projectId, body: call.body, query: call.query };
    const { id = requestScopedId(call.context, 'resource'), fields } = decl.prepare ? await decl.prepare(input) : { fields: call.body as Record<string, unknown> };
    const stream = decl.resource.stream(id);
    const result = await handleCommand(this.ports.events, stream, deciderOf(decl.resource), { type: 'CreateResource', id, projectId, fields, now: this.ports.now() }, call.context);
    await this.ports.waitForProjections(result.position, [decl.projection.name]);
    return toResourceOf(decl, (await this.ports.readBack(decl.projection, stream, id, result.position))!);
  }
}

@CommandHandler(DeleteSimpleResource)
export class DeleteSimpleResourceHandler implements ICommandHandler<DeleteSimpleResource> {
  constructor(@InjectPorts() private readonly ports: SimpleLookupPorts & PortsOf<'now' | 'waitForProjections'>) {}

  async execute({ decl, call }: DeleteSimpleResource): Promise<void> {
    const { projectId } = call;
    await decl.scope?.check(this.ports, projectId, call.query, 'delete');
    await findOwned(this.ports, decl, call);
    const command = { type: 'DeleteResource' as const, id: call.id, projectId, scope: call.query, now: this.ports.now() };
    const result = await handleCommand(this.ports.events, decl.resource.stream(call.id), deciderOf(decl.resource), command, call.context);
    await this.ports.waitForProjections(result.position, [decl.projection.name]);
  }
}

@QueryHandler(GetSimpleResource)
export class GetSimpleResourceHandler implements IQueryHandler<GetSimpleResource> {
  constructor(@InjectPorts() private readonly ports: SimpleLookupPorts) {}

  async execute({ decl, call }: GetSimpleResource): Promise<Resource<Record<string, unknown>>> {
    await decl.scope?.check(this.ports, call.projectId, call.query, 'get');
    return toResourceOf(decl, await findOwned(this.ports, decl, call));
  }
}

@QueryHandler(ListSimpleResources)
export class ListSimpleResourcesHandler implements IQueryHandler<ListSimpleResources> {
  constructor(@InjectPorts() private readonly ports: SimpleLookupPorts) {}

  async execute({ decl, call }: ListSimpleResources): Promise<ListResult<object>> {
    await decl.scope?.check(this.ports, call.projectId, call.query, 'list');
    const { items, total } = await (await this.ports.projections.collection(decl.projection)).find({
      filter: { ...call.query, projectId: call.projectId },
      ...pageOf(call.list),
    });
    return listResult(items.map((d) => toResourceOf(decl, d)), total);
  }
}

/** The generic handlers every simple resource shares (registered once). */
export const SIMPLE_RESOURCE_HANDLERS = [CreateSimpleResourceHandler, DeleteSimpleResourceHandler, GetSimpleResourceHandler, ListSimpleResourcesHandler];
