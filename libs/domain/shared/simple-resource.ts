import type { z } from 'zod';
import { DomainError, invalidFields, type Decider, type DomainEvent } from './domain-error';

/**
 * A simple resource: a project's named record with a create and a delete and no lifecycle of its
 * own (templates, SSH keys, and most of what spec 4.11 to 4.16 adds). Declared once: its schema,
 * its event names and its rules; the decider, the projection and the routes are derived from it.
 */
export interface SimpleResource<S extends z.ZodObject = z.ZodObject> {
  /** Used in messages: `Instance template not found`. */
  label: string;
  /** The event data member that holds the id, e.g. `templateId`. */
  idField: string;
  stream: (id: string) => string;
  /** The fields a create records, validated as a request body (defaults and limits included). */
  schema: S;
  events: {
    created: string;
    deleted: string;
    /** Older versions of the created event and how to read them as the current one. */
    upcast?: Record<string, (data: Record<string, unknown>) => Record<string, unknown>>;
  };
  /** Fields that scope the resource besides its project (a delete must name them; e.g. `providerId`). */
  scope?: readonly (keyof z.output<S> & string)[];
  /** Fields the deleted event carries besides id, project and scope. */
  carried?: readonly (keyof z.output<S> & string)[];
  /** A deleted resource's id may be created again (ids derived from content, such as a key's fingerprint). */
  reusableIds?: boolean;
  /** The pure rules of a create: a refusal, or null. */
  rules?: (create: CreateResource<z.output<S>>) => DomainError | null;
  /** The CONFLICT detail for a create whose id exists. */
  conflict?: (create: CreateResource<z.output<S>>) => string;
}

export type CreateResource<F> = { type: 'CreateResource'; id: string; projectId: string; fields: F; now: string };
export type DeleteResource = { type: 'DeleteResource'; id: string; projectId: string; scope: Record<string, unknown>; now: string };
export type SimpleResourceCommand<F> = CreateResource<F> | DeleteResource;
export type SimpleResourceState<F> = { status: 'none' } | { status: 'active' | 'deleted'; id: string; projectId: string; fields: F };
export type SimpleResourceEvent = DomainEvent<string, Record<string, unknown>>;

/** The created event's data, read as the current version whichever version recorded it. */
export function createdData(resource: SimpleResource, event: SimpleResourceEvent): Record<string, unknown> | null {
  if (event.type === resource.events.created) return event.data;
  const upcast = resource.events.upcast?.[event.type];
  return upcast ? upcast(event.data) : null;
}

export function simpleResourceEventTypes(resource: SimpleResource): string[] {
  return [resource.events.created, resource.events.deleted, ...Object.keys(resource.events.upcast ?? {})];
}

export function simpleResourceDecider<S extends z.ZodObject>(resource: SimpleResource<S>): Decider<SimpleResourceCommand<z.output<S>>, SimpleResourceEvent, SimpleResourceState<z.output<S>>> {
  type F = z.output<S>;
  const notFound = () => new DomainError('NOT_FOUND', `${resource.label} not found`);
  return {
    initialState: () => ({ status: 'none' }),
    evolve: (state, event) => {
      const created = createdData(resource, event);
      if (created) {
        const { [resource.idField]: id, projectId, createdAt: _c, ...fields } = created;
        return { status: 'active', id: String(id), projectId: String(projectId), fields: fields as F };
      }
      if (event.type === resource.events.deleted) return state.status === 'none' ? state : { ...state, status: 'deleted' };
      return state;
    },
    decide: (command, state) => {
      switch (command.type) {
        case 'CreateResource': {
          if (state.status === 'active' || (state.status === 'deleted' && !resource.reusableIds)) {
            throw new DomainError('CONFLICT', resource.conflict?.(command) ?? `${resource.label} ${command.id} already exists`);
          }
          // The schema is the resource's invariant, whoever sends the command.
          const checked = resource.schema.safeParse(command.fields);
          if (!checked.success) throw invalidFields(checked.error);
          const refusal = resource.rules?.(command);
          if (refusal) throw refusal;
          return [{ type: resource.events.created, data: { ...command.fields, [resource.idField]: command.id, projectId: command.projectId, createdAt: command.now } }];
        }
        case 'DeleteResource': {
          // Another project's (or scope's) resource is indistinguishable from a missing one.
          if (state.status !== 'active' || state.projectId !== command.projectId) throw notFound();
          const fields = state.fields as Record<string, unknown>;
          if ((resource.scope ?? []).some((k) => fields[k] !== command.scope[k])) throw notFound();
          const kept = Object.fromEntries([...(resource.scope ?? []), ...(resource.carried ?? [])].map((k) => [k, fields[k]]));
          return [{ type: resource.events.deleted, data: { [resource.idField]: state.id, projectId: state.projectId, ...kept, deletedAt: command.now } }];
        }
        default: {
          const never: never = command;
          return never;
        }
      }
    },
  };
}
