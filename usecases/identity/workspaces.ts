import { projectStream } from '../../libs/domain/identity/events';
import { projectDecider } from '../../libs/domain/identity/project.decider';
import type { MemberScope } from '../../libs/domain/identity/membership';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { projectsProjection, workspaceOfProject } from '../../projections/projects/projects.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

/**
 * Workspaces (DECISIONS 15): a project belongs to one workspace for good (its ProjectCreated says
 * which; no route moves a project), so what is found is kept for the process's life, and only what
 * exists is kept (a project created a moment later is looked up again). The projects model answers;
 * a project it has not caught up with is folded from its stream.
 */
const known = new WeakMap<object, Map<string, string>>();

/** The workspace of a project, or null when there is no such project. */
export async function workspaceOf(ports: PortsOf<'events' | 'projections'>, projectId: string): Promise<string | null> {
  let byProject = known.get(ports);
  if (!byProject) known.set(ports, (byProject = new Map()));
  const hit = byProject.get(projectId);
  if (hit) return hit;
  const doc = await (await ports.projections.collection(projectsProjection)).get(projectId);
  let workspaceId: string | null = doc ? workspaceOfProject(doc) : null;
  if (!doc) {
    const { state } = await aggregateStream(ports.events, projectStream(projectId), projectDecider);
    workspaceId = state.status === 'none' ? null : state.workspaceId;
  }
  if (workspaceId) {
    if (byProject.size >= 10_000) byProject.clear();
    byProject.set(projectId, workspaceId);
  }
  return workspaceId;
}

/**
 * The id of the registry a project's members of `scope` are kept in (stream `member-<id>`, and the
 * `projectId` of their events and documents): the project's own for its members, its workspace's for
 * workspace members.
 */
export async function registryOf(ports: PortsOf<'events' | 'projections'>, projectId: string, scope: MemberScope): Promise<string> {
  return scope === 'workspace' ? ((await workspaceOf(ports, projectId)) ?? projectId) : projectId;
}

