import { deciderSpec } from '../shared/decider-spec';
import type { ProjectCreated } from './events';
import { projectDecider } from './project.decider';

const given = deciderSpec(projectDecider);
const now = '2026-01-01T00:00:00.000Z';
const create = { type: 'CreateProject', projectId: 'p1', name: 'Acme', now } as const;
const created: ProjectCreated = { type: 'identity.ProjectCreated.v1', data: { projectId: 'p1', name: 'Acme', createdAt: now, workspaceId: 'p1' } };
const fold = (events: ProjectCreated[]) => events.reduce(projectDecider.evolve, projectDecider.initialState());

describe('project decider', () => {
  it('creates a project', () => {
    given([]).when(create).then([created]);
  });

  it('starts its own workspace (the project id), or joins the one it is given (DECISIONS 15)', () => {
    given([]).when({ ...create, workspaceId: 'p0' }).then([{ ...created, data: { ...created.data, workspaceId: 'p0' } }]);
    expect(fold([{ ...created, data: { ...created.data, workspaceId: 'p0' } }])).toMatchObject({ workspaceId: 'p0' });
  });

  it('reads a project created before workspaces (no workspaceId) as its own workspace', () => {
    const { workspaceId: _, ...before } = created.data;
    expect(fold([{ type: 'identity.ProjectCreated.v1', data: before }])).toMatchObject({ status: 'active', workspaceId: 'p1' });
  });

  it('refuses to create the same project twice', () => {
    given([created]).when({ ...create, name: 'Other' }).thenThrows('CONFLICT', /p1/);
  });
});

describe('project standing (DECISIONS 18)', () => {
  const suspended = { type: 'identity.ProjectSuspended.v1', data: { projectId: 'p1', reason: 'unpaid', suspendedAt: now } } as const;
  const closed = { type: 'identity.ProjectClosed.v1', data: { projectId: 'p1', reason: 'requested', closedAt: now } } as const;
  const set = (status: 'active' | 'suspended') => ({ type: 'SetProjectStatus', projectId: 'p1', status, reason: 'unpaid', now }) as const;

  it('suspends an active project and reactivates a suspended one', () => {
    given([created]).when(set('suspended')).then([suspended]);
    given([created, suspended]).when(set('active')).then([{ type: 'identity.ProjectReactivated.v1', data: { projectId: 'p1', reason: 'unpaid', reactivatedAt: now } }]);
  });

  it('takes a suspend or reactivate without a reason, and records none', () => {
    given([created]).when({ type: 'SetProjectStatus', projectId: 'p1', status: 'suspended', now }).then([{ type: 'identity.ProjectSuspended.v1', data: { projectId: 'p1', suspendedAt: now } }]);
    given([created, suspended]).when({ type: 'SetProjectStatus', projectId: 'p1', status: 'active', now }).then([{ type: 'identity.ProjectReactivated.v1', data: { projectId: 'p1', reactivatedAt: now } }]);
  });

  it('records nothing when the project already has the asked status', () => {
    given([created]).when(set('active')).then([]);
    given([created, suspended]).when(set('suspended')).then([]);
  });

  it('closes an active or suspended project; closed is final', () => {
    given([created]).when({ type: 'CloseProject', projectId: 'p1', reason: 'requested', now }).then([closed]);
    given([created, suspended]).when({ type: 'CloseProject', projectId: 'p1', reason: 'requested', now }).then([closed]);
    given([created, closed]).when(set('active')).thenThrows('INVALID_STATE', /closed/);
    given([created, closed]).when({ type: 'CloseProject', projectId: 'p1', reason: 'again', now }).thenThrows('INVALID_STATE', /closed/);
  });

  it('refuses to change a project that does not exist', () => {
    given([]).when(set('suspended')).thenThrows('NOT_FOUND', /p1/);
  });
});
