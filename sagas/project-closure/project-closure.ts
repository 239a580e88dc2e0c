import { v5 as uuidv5 } from 'uuid';
import type pino from 'pino';
import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { projectStream, type ProjectClosed } from '../../libs/domain/identity/events';
import { projectDecider } from '../../libs/domain/identity/project.decider';
import { projectOfScope, scopesOfProject } from '../../libs/domain/shared/scope';
import { DomainError, type Decider } from '../../libs/domain/shared/domain-error';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ProjectionEngine } from '../../libs/subscriptions/src/projection-engine';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';

const CLOSURE_NAMESPACE = '0d7c1f4e-52a9-4d7b-8f0e-6a2f3c9b1e75';

/** One job per resource and closure: a replayed closure requests the same job, which every decider ignores. */
export const closureJobId = (projectId: string, resourceType: string, resourceId: string) => uuidv5(`${projectId}/${resourceType}/${resourceId}`, CLOSURE_NAMESPACE);

/** Statuses in which a resource needs no termination (already gone, or going). */
const CLOSING_SKIPS: ReadonlySet<string> = new Set(['terminating', 'terminated', 'deleting', 'deleted']);
/** After the close, a resource in `error` is not tried again by itself (each try would be a job that may fail again). */
const RESWEEP_SKIPS: ReadonlySet<string> = new Set([...CLOSING_SKIPS, 'error', 'failed']);

/** The delete request each resource's decider takes. */
export function terminationCommand(resourceType: string, c: { resourceId: string; projectId: string; jobId: string; now: string; requestedBy: string }): unknown {
  if (resourceType === 'instance') return { type: 'RequestInstanceAction', jobId: c.jobId, action: 'terminate', viaDelete: true, now: c.now, requestedBy: c.requestedBy };
  if (resourceType === 'server') return { type: 'RequestServerDeletion', jobId: c.jobId, now: c.now, requestedBy: c.requestedBy };
  // Declared job-backed resources (spec 4.8 to 4.10): the generic operation request.
  return { type: 'RequestOperation', id: c.resourceId, jobId: c.jobId, projectId: c.projectId, operation: 'delete', args: {}, requestedBy: c.requestedBy, now: c.now };
}

export interface ProjectClosureDeps {
  events: EventStore;
  projections: ProjectionEngine;
  /** Waits until the named read models have passed a position (false when the wait timed out). */
  waitForProjections: (position: number, names: string[]) => Promise<boolean>;
  resources: readonly AnyJobBackedResource[];
  now: () => string;
  logger: pino.Logger;
}

/**
 * TerminateResourcesOnProjectClosed (DECISIONS 18): when a project is closed, every running resource it
 * owns (instances, servers, and the declared job-backed resources: volumes, IPs, clusters, …) gets its
 * delete requested under a job id derived from the project and the resource, so the existing job
 * lifecycle terminates it (3 attempts, retries, the resource's `error` on failure) and a replay after a
 * crash requests nothing twice. A resource whose decider refuses (mid-operation, or a rule such as a
 * volume still attached) is logged and left; when a job of the closed project completes later (the
 * operation the resource was busy with), the project is swept again, so a resource that was creating
 * at the close is terminated once it is created. The project's history is never touched.
 */
export class ProjectClosure {
  readonly name = 'saga:project-closure';
  readonly batchSize = 100;

  constructor(private readonly deps: ProjectClosureDeps) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let handled = false;
    // A project's jobs that completed after its close: the resource they left settled may need terminating now.
    const completed = new Map<string, RecordedEvent>();
    for (const e of batch) {
      if (e.type === 'identity.ProjectClosed.v1') {
        handled = true;
        const projectId = (e.data as ProjectClosed['data']).projectId;
        this.closed.add(projectId);
        for (const scope of scopesOfProject(projectId)) completed.delete(scope);
        // Both modes' resources (DECISIONS 21): the project's live scope and its test scope.
        for (const scope of scopesOfProject(projectId)) await this.terminateAll(scope, e, CLOSING_SKIPS);
      } else if (e.type === 'jobs.JobCompleted.v1' && e.metadata.projectId) completed.set(e.metadata.projectId, e);
    }
    for (const [scope, e] of completed) {
      if (!(await this.isClosed(projectOfScope(scope)))) continue;
      handled = true;
      // A resource left in `error` (its termination failed) waits for a manual retry rather than another job.
      await this.terminateAll(scope, e, RESWEEP_SKIPS);
    }
    return handled;
  }

  /** Closed is final, so a closed project is remembered; any other is read from its stream (short) each time. */
  private readonly closed = new Set<string>();

  private async isClosed(projectId: string): Promise<boolean> {
    if (this.closed.has(projectId)) return true;
    const closed = (await aggregateStream(this.deps.events, projectStream(projectId), projectDecider)).state.status === 'closed';
    if (closed) this.closed.add(projectId);
    return closed;
  }

  /** Requests the delete of each live resource of one of the project's scopes, as of the read models at `at`. */
  private async terminateAll(projectId: string, at: RecordedEvent, skip: ReadonlySet<string>): Promise<void> {
    const models = this.deps.resources.map((r) => ({ r, model: this.deps.projections.projections.find((p) => p.name === r.readModel) })).filter((x): x is { r: AnyJobBackedResource; model: DocumentProjection } => !!x.model);
    // Everything created before the close must be in the read models before they are listed.
    if (!(await this.deps.waitForProjections(at.position, models.map((m) => m.model.name)))) throw new Error(`read models have not reached position ${at.position} for the closure of project ${projectId} yet`);
    const ctx: CommandContext = { metadata: causedBy(at, { projectId, actor: 'system:project-closure' }) };
    for (const { r, model } of models) {
      for (const doc of await this.live(model, projectId, skip)) {
        const command = terminationCommand(r.resourceType, { resourceId: doc.id, projectId, jobId: closureJobId(projectId, r.resourceType, doc.id), now: this.deps.now(), requestedBy: 'system:project-closure' });
        try {
          await handleCommand(this.deps.events, r.stream(doc.id), r.decider as unknown as Decider<unknown, never, unknown>, command, ctx);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err; // infrastructure: the runner hands the batch again
          this.deps.logger.warn({ projectId, resourceType: r.resourceType, resourceId: doc.id, code: err.code, reason: err.message }, 'project closure: resource not terminated');
        }
      }
    }
  }

  /** The project's documents of one model whose status is not in `skip`, read page by page. */
  private async live(model: DocumentProjection, projectId: string, skip: ReadonlySet<string>): Promise<ReadDoc[]> {
    const collection = await this.deps.projections.collection(model);
    const out: ReadDoc[] = [];
    // Each page seeks past the last one on the model's [projectId, -createdAt, id] index (no skip over the pages before).
    for (let after: ReadDoc | undefined; ; ) {
      const page = await collection.find({ filter: { projectId }, sort: [{ field: 'createdAt', direction: -1 }], limit: 500, withTotal: false, ...(after ? { after } : {}) });
      out.push(...page.items.filter((d) => !skip.has(String((d as { status?: unknown }).status))));
      if (page.items.length < 500) return out;
      after = page.items[page.items.length - 1];
    }
  }
}
