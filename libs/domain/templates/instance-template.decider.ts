import { DomainError, type Decider } from '../shared/domain-error';
import type { InstanceTemplateEvent, InstanceTemplateSpec } from './events';

export type InstanceTemplateState = { status: 'none' } | { status: 'active' | 'deleted'; templateId: string; projectId: string };

export type CreateInstanceTemplate = { type: 'CreateInstanceTemplate'; templateId: string; projectId: string; spec: InstanceTemplateSpec; now: string };
export type DeleteInstanceTemplate = { type: 'DeleteInstanceTemplate'; templateId: string; projectId: string; now: string };
export type InstanceTemplateCommand = CreateInstanceTemplate | DeleteInstanceTemplate;

export const MAX_TEMPLATE_TAGS = 50;

export const instanceTemplateDecider: Decider<InstanceTemplateCommand, InstanceTemplateEvent, InstanceTemplateState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'compute.InstanceTemplateCreated.v1':
        return { status: 'active', templateId: event.data.templateId, projectId: event.data.projectId };
      case 'compute.InstanceTemplateDeleted.v1':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateInstanceTemplate': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Instance template ${command.templateId} already exists`);
        const { spec } = command;
        if (spec.workerCount < 1) throw new DomainError('BAD_REQUEST', 'workerCount must be at least 1');
        if (Object.keys(spec.tags).length > MAX_TEMPLATE_TAGS) throw new DomainError('BAD_REQUEST', `at most ${MAX_TEMPLATE_TAGS} tags`);
        return [{ type: 'compute.InstanceTemplateCreated.v1', data: { ...spec, templateId: command.templateId, projectId: command.projectId, createdAt: command.now } }];
      }
      case 'DeleteInstanceTemplate': {
        if (state.status !== 'active' || state.projectId !== command.projectId) throw new DomainError('NOT_FOUND', 'Instance template not found');
        return [{ type: 'compute.InstanceTemplateDeleted.v1', data: { templateId: command.templateId, projectId: command.projectId, deletedAt: command.now } }];
      }
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
