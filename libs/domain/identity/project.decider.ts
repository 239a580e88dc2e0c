import { DomainError, type Decider } from '../shared/domain-error';
import { workspaceOfCreated, type ProjectEvent } from './events';

/** A project's standing with the platform (DECISIONS 18): `closed` is final. */
export type ProjectStatus = 'active' | 'suspended' | 'closed';

/** `workspaceId`: the workspace the project belongs to (DECISIONS 15); its own id when it started one. */
export type ProjectState = { status: 'none' } | { status: ProjectStatus; projectId: string; name: string; workspaceId: string };

/**
 * `workspaceId`: an existing workspace to join (the caller checked it exists: it is another stream);
 * absent, the project starts its own, whose id is the project's.
 */
export type CreateProject = { type: 'CreateProject'; projectId: string; name: string; workspaceId?: string; now: string };
/** Suspend or reactivate (the admin's PATCH); asking for the status it already has records nothing. */
export type SetProjectStatus = { type: 'SetProjectStatus'; projectId: string; status: 'active' | 'suspended'; reason?: string; now: string };
export type CloseProject = { type: 'CloseProject'; projectId: string; reason: string; now: string };

export type ProjectCommand = CreateProject | SetProjectStatus | CloseProject;

export const projectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'identity.ProjectCreated.v1':
        return { status: 'active', projectId: event.data.projectId, name: event.data.name, workspaceId: workspaceOfCreated(event.data) };
      case 'identity.ProjectSuspended.v1':
        return state.status === 'none' ? state : { ...state, status: 'suspended' };
      case 'identity.ProjectReactivated.v1':
        return state.status === 'none' ? state : { ...state, status: 'active' };
      case 'identity.ProjectClosed.v1':
        return state.status === 'none' ? state : { ...state, status: 'closed' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreateProject') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Project ${command.projectId} already exists`);
      return [{ type: 'identity.ProjectCreated.v1', data: { projectId: command.projectId, name: command.name, createdAt: command.now, workspaceId: command.workspaceId ?? command.projectId } }];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', `Customer ${command.projectId} not found`);
    if (state.status === 'closed') throw new DomainError('INVALID_STATE', `Customer ${command.projectId} is closed; a closed project cannot be ${command.type === 'CloseProject' ? 'closed again' : 'changed'}`);
    const { projectId, now } = command;
    if (command.type === 'CloseProject') return [{ type: 'identity.ProjectClosed.v1', data: { projectId, reason: command.reason, closedAt: now } }];
    const { reason } = command;
    if (command.status === state.status) return [];
    // A reason is optional for a suspend or reactivate, recorded when given (DECISIONS 18).
    const given = reason === undefined ? {} : { reason };
    return command.status === 'suspended'
      ? [{ type: 'identity.ProjectSuspended.v1', data: { projectId, ...given, suspendedAt: now } }]
      : [{ type: 'identity.ProjectReactivated.v1', data: { projectId, ...given, reactivatedAt: now } }];
  },
};
