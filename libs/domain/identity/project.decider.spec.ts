import { deciderSpec } from '../shared/decider-spec';
import type { ProjectCreated } from './events';
import { projectDecider } from './project.decider';

const given = deciderSpec(projectDecider);
const now = '2026-01-01T00:00:00.000Z';
const create = { type: 'CreateProject', projectId: 'p1', name: 'Acme', now } as const;
const created: ProjectCreated = { type: 'identity.ProjectCreated.v1', data: { projectId: 'p1', name: 'Acme', createdAt: now } };

describe('project decider', () => {
  it('creates a project', () => {
    given([]).when(create).then([created]);
  });

  it('refuses to create the same project twice', () => {
    given([created]).when({ ...create, name: 'Other' }).thenThrows('CONFLICT', /p1/);
  });
});
