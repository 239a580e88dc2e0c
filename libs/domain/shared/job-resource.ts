import type { ResourcePrice } from '../catalog/pricing';
import type { z } from 'zod';
import { DomainError, invalidFields, type Decider, type DomainEvent } from './domain-error';
import { decideOperation, evolveLifecycle, isOperationCommand, startOperation, type CurrentJob, type JobLifecycle, type OperationCommand, type OperationTable, type StepData } from './operations';

/**
 * A declared job-backed resource (volumes, elastic IPs, VLANs, clusters, … of spec 4.8 to 4.10):
 * its create schema, its operation table and what each operation's completion changes. From the
 * declaration come its events (`<context>.<Name>Requested.v1`, `<Name>OperationRequested.v1`,
 * `…OperationStarted/Completed/Failed/Retried.v1`), its decider, its job lifecycle (the same one
 * instances and servers use), its read model and its routes.
 */
export interface JobResource<S extends z.ZodObject = z.ZodObject, Op extends string = string, St extends string = string> {
  /** Bounded context: the events' type prefix and (through the stream category) their topic. */
  context: string;
  /** PascalCase, in event names: `Volume`. */
  name: string;
  /** In messages: `Volume`, `Elastic IP`. */
  label: string;
  /** Singular kebab case, in job types (`volume.attach`, DECISIONS 14) and the jobs' resourceType. */
  kind: string;
  stream: (id: string) => string;
  /** The fields a create records (limits and defaults included); completions may change them. */
  schema: S;
  /** Fields the service keeps for itself (a vault reference): never shown in responses or job payloads. */
  internal?: readonly string[];
  /** What the provider reports about the resource (an address, an endpoint, …), shown beside the fields. */
  provided?: z.ZodObject;
  /** The operations (`create` and `delete` among them) and their statuses. */
  operations: OperationTable<Op, St>;
  /** Statuses a `live` operation cannot start from; `delete` ends in the first one. */
  gone: readonly St[];
  /** The status a failed operation leaves (default `error`). */
  failed?: St;
  /** An operation's name in its job type and provider call where it differs (a model's create is its `deploy`: `model.deploy`). */
  jobNames?: Partial<Record<Op, string>>;
  /** What an operation records about its request (its body and the lookups its rules need). */
  args?: Partial<Record<Op, z.ZodType>>;
  /** Pure rules of a request: a refusal, or null (the status rule is the table's). */
  rules?: Partial<Record<Op, (fields: z.output<S>, args: Record<string, unknown>) => DomainError | null>>;
  /** Ids derived from content (a bucket's provider and name): a deleted resource's id may be created again. */
  reusableIds?: boolean;
  /** The CONFLICT detail for a create whose id exists (e.g. a bucket name taken). */
  conflict?: (fields: z.output<S>) => string;
  /** What a completion changes in the fields (from the request's args and the provider's result). */
  complete?: Partial<Record<Op, (fields: z.output<S>, args: Record<string, unknown>, result: Record<string, unknown>) => z.output<S>>>;
}

// Resources differ in their types; the generic pieces see them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobResource = JobResource<any, any, any>;

export type JobResourceState<F> =
  | { status: 'none' }
  | {
      status: string;
      id: string;
      projectId: string;
      providerId: string;
      providerKind: string;
      fields: F;
      externalId: string | null;
      /** What the provider reported (address, endpoint, …). */
      attributes: Record<string, unknown>;
      currentJob: (NonNullable<CurrentJob<string>> & { args?: Record<string, unknown> }) | null;
    };

/** `price`: what the resource costs, where it is priced (DECISIONS 22), recorded in its request event. */
export type CreateJobResource<F> = { type: 'CreateResource'; id: string; jobId: string; projectId: string; providerId: string; providerKind: string; fields: F; price?: ResourcePrice; now: string };
export type RequestResourceOperation = { type: 'RequestOperation'; id: string; jobId: string; projectId: string; operation: string; args: Record<string, unknown>; requestedBy: string; now: string };
/** A resource that exists at the provider but was made outside the API (the `/db` record routes): recorded in its created state. */
export type ImportJobResource<F> = { type: 'ImportResource'; id: string; projectId: string; providerId: string; providerKind: string; fields: F; externalId: string; attributes: Record<string, unknown>; now: string };
export type JobResourceCommand<F> = CreateJobResource<F> | ImportJobResource<F> | RequestResourceOperation | OperationCommand<JobResourceResult>;
const CREATE = 'create';
const DELETE = 'delete';

/** What a job's provider call reports: the external id and the resource's provider-side attributes. */
export type JobResourceResult = { externalId: string; attributes: Record<string, unknown> };
export type JobResourceEvent = DomainEvent<string, Record<string, unknown>>;

/**
 * The data of each event of a declared resource, by its key in `jobResourceEventTypes`; `fields` is
 * the output of the resource's own schema. The decider builds its events to these shapes, and the
 * AsyncAPI document's payloads are generated from them (scripts/event-schemas.cjs) with `fields` the
 * resource's schema.
 */
export type JobResourceEventData<F = Record<string, unknown>> = {
  requested: { id: string; jobId: string; projectId: string; providerId: string; providerKind: string; fields: F; price?: ResourcePrice; requestedAt: string };
  operationRequested: { id: string; jobId: string; operation: string; args: Record<string, unknown>; from: string; requestedBy: string; requestedAt: string };
  started: StepData & { operation: string };
  completed: StepData & { operation: string; result: JobResourceResult | null };
  failed: StepData & { operation: string; error: string };
  retried: StepData & { operation: string; status: string };
  imported: { id: string; projectId: string; providerId: string; providerKind: string; fields: F; externalId: string; attributes: Record<string, unknown>; importedAt: string };
};
/** The same, for the schema generator (a type of no parameters). */
export type DeclaredResourceEventData = JobResourceEventData;
type Data<K extends keyof JobResourceEventData> = JobResourceEventData[K];

/** The event types of a declared resource. */
export function jobResourceEventTypes(r: Pick<JobResource, 'context' | 'name'>) {
  const t = (what: string) => `${r.context}.${r.name}${what}.v1`;
  return {
    requested: t('Requested'),
    operationRequested: t('OperationRequested'),
    started: t('OperationStarted'),
    completed: t('OperationCompleted'),
    failed: t('OperationFailed'),
    retried: t('OperationRetried'),
    imported: t('Imported'),
  };
}

/** The job lifecycle of a declared resource (the one mechanism of libs/domain/shared/operations.ts). */
export function jobResourceLifecycle(r: JobResource): JobLifecycle<string, string, JobResourceEvent, JobResourceResult> {
  const types = jobResourceEventTypes(r);
  return {
    operations: r.operations,
    gone: r.gone,
    failed: r.failed,
    events: {
      working: (operation, d) => ({ type: types.started, data: { ...d, operation } satisfies Data<'started'> }),
      completed: (operation, d, result) => ({ type: types.completed, data: { ...d, operation, result: result ?? null } satisfies Data<'completed'> }),
      failed: (operation, d) => ({ type: types.failed, data: { ...d, operation } satisfies Data<'failed'> }),
      retried: (operation, d) => ({ type: types.retried, data: { ...d, operation } satisfies Data<'retried'> }),
    },
    read: (e) => {
      const d = e.data as { jobId: string; operation?: string; error?: string };
      switch (e.type) {
        case types.requested:
          return { step: 'requested', jobId: d.jobId, operation: 'create' };
        case types.operationRequested:
          return { step: 'requested', jobId: d.jobId, operation: d.operation! };
        case types.started:
          return { step: 'working', jobId: d.jobId, operation: d.operation! };
        case types.completed:
          return { step: 'completed', jobId: d.jobId, operation: d.operation! };
        case types.failed:
          return { step: 'failed', jobId: d.jobId, operation: d.operation!, error: d.error };
        case types.retried:
          return { step: 'retried', jobId: d.jobId, operation: d.operation! };
        default:
          return null;
      }
    },
  };
}

/** The fields after a completed operation (the declaration's `complete`, else unchanged). */
export function completedFields<F>(r: JobResource, operation: string, fields: F, args: Record<string, unknown>, result: JobResourceResult | null): F {
  const apply = (r.complete as Record<string, ((f: F, a: Record<string, unknown>, res: Record<string, unknown>) => F) | undefined> | undefined)?.[operation];
  return apply ? apply(fields, args, result?.attributes ?? {}) : fields;
}

export function jobResourceDecider<S extends z.ZodObject>(r: JobResource<S>): Decider<JobResourceCommand<z.output<S>>, JobResourceEvent, JobResourceState<z.output<S>>> {
  type F = z.output<S>;
  type Live = Exclude<JobResourceState<F>, { status: 'none' }>;
  const types = jobResourceEventTypes(r);
  const lifecycle = jobResourceLifecycle(r as unknown as JobResource);
  const notFound = () => new DomainError('NOT_FOUND', `${r.label} not found`);
  return {
    initialState: () => ({ status: 'none' }),
    evolve: (state, event) => {
      const d = event.data as Record<string, unknown>;
      if (event.type === types.requested) {
        const created: Live = { status: '', id: String(d.id), projectId: String(d.projectId), providerId: String(d.providerId), providerKind: String(d.providerKind), fields: d.fields as F, externalId: null, attributes: {}, currentJob: null };
        return { ...created, ...evolveLifecycle(lifecycle, created, event)! };
      }
      if (event.type === types.imported) {
        return { status: r.operations[CREATE].final, id: String(d.id), projectId: String(d.projectId), providerId: String(d.providerId), providerKind: String(d.providerKind), fields: d.fields as F, externalId: String(d.externalId), attributes: (d.attributes as Record<string, unknown>) ?? {}, currentJob: null };
      }
      if (state.status === 'none') return state;
      const live = state as Live;
      const moved = evolveLifecycle(lifecycle, live, event);
      if (!moved) return state;
      const next: Live = { ...live, ...moved, currentJob: moved.currentJob && { ...moved.currentJob, args: live.currentJob?.args } };
      if (event.type === types.operationRequested) next.currentJob = { ...moved.currentJob!, args: (d.args as Record<string, unknown>) ?? {} };
      if (event.type === types.completed) {
        const result = d.result as JobResourceResult | null;
        next.fields = completedFields(r as unknown as JobResource, String(d.operation), live.fields, live.currentJob?.args ?? {}, result);
        if (result) {
          next.externalId = result.externalId ?? live.externalId;
          next.attributes = { ...live.attributes, ...result.attributes };
        }
      }
      return next;
    },
    decide: (command, state) => {
      if (isOperationCommand<JobResourceResult>(command)) return state.status === 'none' ? [] : decideOperation(lifecycle, state as Live, command);
      switch (command.type) {
        case 'ImportResource':
        case 'CreateResource': {
          const reusable = r.reusableIds && state.status === r.operations[DELETE]?.final;
          if (state.status !== 'none' && !reusable) throw new DomainError('CONFLICT', r.conflict?.(command.fields) ?? `${r.label} ${command.id} already exists`);
          const checked = r.schema.safeParse(command.fields);
          if (!checked.success) throw invalidFields(checked.error);
          // What is recorded is the schema's output: defaults (`targets: []`) are in the first event.
          const fields = checked.data as F;
          const refusal = (r.rules as Record<string, (f: F, a: Record<string, unknown>) => DomainError | null> | undefined)?.create?.(fields, {});
          if (refusal) throw refusal;
          if (command.type === 'ImportResource') {
            const { id, projectId, providerId, providerKind, externalId, attributes, now } = command;
            return [{ type: types.imported, data: { id, projectId, providerId, providerKind, fields, externalId, attributes, importedAt: now } satisfies JobResourceEventData<F>['imported'] }];
          }
          const { id, jobId, projectId, providerId, providerKind, price, now } = command;
          return [{ type: types.requested, data: { id, jobId, projectId, providerId, providerKind, fields, ...(price ? { price } : {}), requestedAt: now } satisfies JobResourceEventData<F>['requested'] }];
        }
        case 'RequestOperation': {
          const live = state as Live;
          if (state.status === 'none' || live.projectId !== command.projectId) throw notFound();
          if (!Object.hasOwn(r.operations, command.operation) || command.operation === 'create') throw new DomainError('BAD_REQUEST', `Unknown operation ${command.operation}`);
          const label = r.label.charAt(0).toLowerCase() + r.label.slice(1);
          startOperation(lifecycle, command.operation, state.status, `Cannot ${command.operation} ${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label}`);
          const refusal = (r.rules as Record<string, (f: F, a: Record<string, unknown>) => DomainError | null> | undefined)?.[command.operation]?.(live.fields, command.args);
          if (refusal) throw refusal;
          const { id, jobId, operation, args, requestedBy, now } = command;
          return [{ type: types.operationRequested, data: { id, jobId, operation, args, from: state.status, requestedBy, requestedAt: now } satisfies Data<'operationRequested'> }];
        }
        default:
          return [];
      }
    },
  };

}

/**
 * The rule of a regional resource's assign, attach or move (DECISIONS 14): the target, whose region
 * the handler looked up (`targetRegion`), is in the resource's region; else 422 INVALID_REGION.
 */
export const sameRegion =
  (label: string) =>
  (fields: { region?: unknown }, args: Record<string, unknown>): DomainError | null =>
    fields.region !== undefined && args.targetRegion !== fields.region
      ? new DomainError('INVALID_REGION', `${String(args.targetType)} ${String(args.targetId)} is in ${String(args.targetRegion)}; the ${label} is in ${String(fields.region)}`)
      : null;
