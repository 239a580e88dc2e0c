import { logRecorder, projected } from '../../test/support/projector';
import { customRolesProjection } from './custom-roles.projection';

const created = { projectId: 'p1', name: 'auditor', description: 'reads billing', permissions: ['billing:read'], createdAt: '2026-01-01T00:00:00.000Z' };

describe('custom roles read model', () => {
  it('holds a created role, replaces its name, description and permissions on an update, and deletes it', async () => {
    const log = logRecorder();
    const r = log.stream('role-r1', { roleId: 'r1', projectId: 'p1' });
    const model = await projected(customRolesProjection);
    await model.handle(r('identity.RoleCreated.v1', created));
    expect(await model.get('r1')).toEqual({ id: 'r1', _position: 1, projectId: 'p1', name: 'auditor', description: 'reads billing', permissions: ['billing:read'], createdAt: created.createdAt, updatedAt: created.createdAt });

    // The grants recorded on the role's stream are not the model's concern.
    await model.handle(r('identity.RoleGranted.v1', { grantId: 'g1', holder: { kind: 'member', id: 'm1' }, grantedAt: '2026-01-01T00:00:01.000Z' }));
    await model.handle(r('identity.RoleUpdated.v1', { name: 'billing-admin', description: null, permissions: ['billing:read', 'billing:write'], updatedAt: '2026-01-02T00:00:00.000Z' }));
    expect(await model.get('r1')).toMatchObject({ name: 'billing-admin', description: null, permissions: ['billing:read', 'billing:write'], createdAt: created.createdAt, updatedAt: '2026-01-02T00:00:00.000Z' });

    await model.handle(r('identity.RoleDeleted.v1', { deletedAt: '2026-01-03T00:00:00.000Z' }));
    expect(await model.all()).toEqual([]);
  });

  it('creates no role from an update of one it never saw created', async () => {
    const log = logRecorder();
    const model = await projected(customRolesProjection);
    await model.handle(log.stream('role-r2', { roleId: 'r2', projectId: 'p1' })('identity.RoleUpdated.v1', { name: 'x', description: null, permissions: [], updatedAt: '2026-01-02T00:00:00.000Z' }));
    expect(await model.all()).toEqual([]);
  });

  it('lists a project\'s roles oldest first, and keeps a deleted role deleted through a replay', async () => {
    const log = logRecorder();
    const a = log.stream('role-a', { roleId: 'a', projectId: 'p1' });
    const b = log.stream('role-b', { roleId: 'b', projectId: 'p1' });
    const c = log.stream('role-c', { roleId: 'c', projectId: 'p2' });
    const events = [a('identity.RoleCreated.v1', { ...created, createdAt: '2026-01-02T00:00:00.000Z' }), b('identity.RoleCreated.v1', created), c('identity.RoleCreated.v1', { ...created, projectId: 'p2' }), a('identity.RoleDeleted.v1', { deletedAt: '2026-01-05T00:00:00.000Z' })];
    const model = await projected(customRolesProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    const { items } = await model.collection.find({ filter: { projectId: 'p1' }, sort: [{ field: 'createdAt', direction: 1 }] });
    expect(items.map((d) => d.id)).toEqual(['b']);
  });
});
