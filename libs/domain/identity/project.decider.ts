import { DomainError, type Decider } from '../shared/domain-error';
import type { ProjectCreated } from './events';

export type ProjectState = { status: 'none' } | { status: 'active'; projectId: string; name: string };

export type CreateProject = { type: 'CreateProject'; projectId: string; name: string; now: string };

export const projectDecider: Decider<CreateProject, ProjectCreated, ProjectState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (_state, event) => {
    switch (event.type) {
      case 'identity.ProjectCreated.v1':
        return { status: 'active', projectId: event.data.projectId, name: event.data.name };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (state.status !== 'none') throw new DomainError('CONFLICT', `Project ${command.projectId} already exists`);
    return [{ type: 'identity.ProjectCreated.v1', data: { projectId: command.projectId, name: command.name, createdAt: command.now } }];
  },
};
