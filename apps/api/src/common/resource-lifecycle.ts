import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Decider, DomainEvent } from '../../../../libs/domain/shared/domain-error';
import { handleCommand, type CommandResult } from '../../../../libs/eventstore/src/handle-command';
import type { RecordedEvent } from '../../../../libs/eventstore/src/event-store.port';
import { principalProjectId, type Principal } from '../../../../libs/http/src/auth';
import { resource, type Resource, type ResourceDocument } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/http/src/errors';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { listResult, type ListResult } from '../../../../libs/http/src/list-result';
import type { Filter, ReadDoc } from '../../../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { commandContext } from '../identity/request-context';
import type { Platform } from '../../../../libs/runtime/src/platform';


/** A read-model document owned by one project. */
export interface ProjectDoc extends ReadDoc {
  projectId: string;
}

export const projectIdOf = (p: Principal | null): string => principalProjectId(p) ?? '';

/**
 * An id in a path: opaque to clients, so any non-empty value up to the router's parameter limit
 * (1024) is looked up and an unknown one is a 404, never a 400.
 */
export const pathId = z.string().min(1).max(1024);

/** Path parameter `{id}` of a simple resource. */
export const idParams = z.object({ id: pathId });

export interface ResourceLifecycleSpec<D extends ProjectDoc, C, E extends DomainEvent, S> {
  /** JSON:API type, e.g. `instance-templates`. */
  type: string;
  /** Used in 404 details, e.g. `Instance template`. */
  label: string;
  projection: DocumentProjection<D>;
  stream: (id: string) => string;
  decider: Decider<C, E, S>;
  attributes: (doc: D) => object;
}

/**
 * The create/list/get/delete skeleton of a simple project-scoped resource (STYLE practice 8):
 * reads come from its projection, writes go through its decider on `stream(id)` and answer once the
 * projection has caught up (read-your-writes, DECISIONS 12). Another project's ids are 404 NOT_FOUND.
 */
export class ResourceLifecycle<D extends ProjectDoc, C, E extends DomainEvent, S> {
  constructor(
    private readonly platform: Platform,
    readonly spec: ResourceLifecycleSpec<D, C, E, S>,
  ) {}

  collection() {
    return this.platform.projections.collection(this.spec.projection);
  }

  toResource(doc: D): Resource<object> {
    return { id: doc.id, type: this.spec.type, attributes: this.spec.attributes(doc) };
  }

  document(doc: D): ResourceDocument<object> {
    return resource(this.spec.type, doc.id, this.spec.attributes(doc));
  }

  /** One page of the project's documents matching `filter`, in the list query's order. */
  async list(principal: Principal | null, query: ListQuery<unknown>, filter: Filter = {}): Promise<ListResult<object>> {
    const { items, total } = await (await this.collection()).find({
      filter: { ...filter, projectId: projectIdOf(principal) },
      sort: query.sort,
      skip: query.skip,
      limit: query.limit,
    });
    return listResult(items.map((d) => this.toResource(d)), total);
  }

  /** The project's document `id` (also matching `filter`), else 404 NOT_FOUND. */
  async get(principal: Principal | null, id: string, filter: Partial<Record<keyof D, unknown>> = {}): Promise<D> {
    const doc = await (await this.collection()).get(id);
    const matches = doc && doc.projectId === projectIdOf(principal) && Object.entries(filter).every(([k, v]) => doc[k] === v);
    if (!doc || !matches) throw notFound(`${this.spec.label} not found`);
    return doc;
  }

  /** Decides `command` on the resource's stream and waits for the projection to reflect it. */
  async execute(req: FastifyRequest, principal: Principal | null, id: string, command: C): Promise<CommandResult<S>> {
    const result = await handleCommand(this.platform.events, this.spec.stream(id), this.spec.decider, command, commandContext(req, principal));
    await this.platform.waitForProjections(result.position, [this.spec.projection.name]);
    return result;
  }

  /**
   * `execute` for a create: answers the projected document. Should the read model lag beyond the
   * bounded wait, the answer is the projection of the events just appended, so a committed create
   * never reports a failure (a retry would otherwise create a second resource).
   */
  async create(req: FastifyRequest, principal: Principal | null, id: string, command: C): Promise<ResourceDocument<object>> {
    const result = await this.execute(req, principal, id, command);
    let doc = await (await this.collection()).get(id);
    if (!doc) {
      for (const e of result.events) {
        const recorded = { id, type: e.type, data: e.data, streamId: this.spec.stream(id), revision: 0, position: result.position ?? 0, metadata: { schemaVersion: 1 }, recordedAt: nowIso() };
        doc = this.spec.projection.evolve(doc, recorded as RecordedEvent);
      }
    }
    if (!doc) throw new Error(`${this.spec.label} ${id}: the decided events project to no document`);
    return this.document(doc);
  }
}

/** Clock of the write side (the domain takes time as data). */
export const nowIso = (): string => new Date().toISOString();
