import type { Filter } from '../../libs/readstore/src/read-store.port';
import { logRecorder, projected } from '../../test/support/projector';
import { projectsProjection } from './projects.projection';

const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
const organization = { legalName: 'Acme Ltd', country: 'NG' };

describe('projects read model: standing and verification (admin lists and the auth pipeline)', () => {
  it('opens a project active, in its workspace, created by the actor of its creation', async () => {
    const log = logRecorder();
    const model = await projected(projectsProjection);
    await model.handle(
      log.stream('project-p1', { projectId: 'p1' })('identity.ProjectCreated.v1', { name: 'Acme', createdAt: at(1), workspaceId: 'w1' }, { actor: 'admin:k1' }),
      log.stream('project-p2', { projectId: 'p2' })('identity.ProjectCreated.v1', { name: 'Old', createdAt: at(1) }, { actor: 'system:bootstrap' }),
    );
    expect(await model.get('p1')).toEqual({ id: 'p1', _position: 1, name: 'Acme', workspaceId: 'w1', createdAt: at(1), status: 'active', statusReason: null, statusChangedAt: null, createdBy: 'admin:k1', kycStatus: 'none', kycRequestId: null, updatedAt: at(1) });
    // A project created before workspaces is its own workspace.
    expect(await model.get('p2')).toMatchObject({ workspaceId: 'p2', createdBy: 'system:bootstrap' });
  });

  it('follows suspension, reactivation and closing with the reason of each', async () => {
    const log = logRecorder();
    const p = log.stream('project-p1', { projectId: 'p1' });
    const model = await projected(projectsProjection);
    await model.handle(p('identity.ProjectCreated.v1', { name: 'Acme', createdAt: at(1) }, { actor: 'admin:k1' }));
    await model.handle(p('identity.ProjectSuspended.v1', { reason: 'unpaid', suspendedAt: at(2) }));
    expect(await model.get('p1')).toMatchObject({ status: 'suspended', statusReason: 'unpaid', statusChangedAt: at(2), updatedAt: at(2) });
    await model.handle(p('identity.ProjectReactivated.v1', { reason: 'paid', reactivatedAt: at(3) }));
    expect(await model.get('p1')).toMatchObject({ status: 'active', statusReason: 'paid', statusChangedAt: at(3) });
    await model.handle(p('identity.ProjectClosed.v1', { reason: 'customer left', closedAt: at(4) }));
    expect(await model.get('p1')).toMatchObject({ status: 'closed', statusReason: 'customer left', statusChangedAt: at(4), createdAt: at(1), createdBy: 'admin:k1' });
  });

  it('shows the latest KYC request\'s status, a new submission after a rejection included', async () => {
    const log = logRecorder();
    const model = await projected(projectsProjection);
    const kyc = log.stream('admin-kyc-p1', { projectId: 'p1' });
    await model.handle(log.stream('project-p1', { projectId: 'p1' })('identity.ProjectCreated.v1', { name: 'Acme', createdAt: at(1) }));
    await model.handle(kyc('admin.KycSubmitted.v1', { kycId: 'k1', organization, submittedAt: at(2) }));
    expect(await model.get('p1')).toMatchObject({ kycStatus: 'pending', kycRequestId: 'k1', updatedAt: at(2), status: 'active' });
    await model.handle(kyc('admin.KycRejected.v1', { kycId: 'k1', reason: 'blurry', decidedBy: 'admin:a', decidedAt: at(3) }));
    expect(await model.get('p1')).toMatchObject({ kycStatus: 'rejected', kycRequestId: 'k1' });
    await model.handle(kyc('admin.KycSubmitted.v1', { kycId: 'k2', organization, submittedAt: at(4) }), kyc('admin.KycApproved.v1', { kycId: 'k2', decidedBy: 'admin:a', decidedAt: at(5) }));
    expect(await model.get('p1')).toMatchObject({ kycStatus: 'approved', kycRequestId: 'k2', updatedAt: at(5) });
  });

  it('creates no project from a status change or a KYC event of one it never saw created', async () => {
    const log = logRecorder();
    const model = await projected(projectsProjection);
    await model.handle(log.stream('project-p9', { projectId: 'p9' })('identity.ProjectSuspended.v1', { reason: 'x', suspendedAt: at(2) }), log.stream('admin-kyc-p9', { projectId: 'p9' })('admin.KycSubmitted.v1', { kycId: 'k9', organization, submittedAt: at(2) }));
    expect(await model.all()).toEqual([]);
  });

  it('does not reopen a closed project when the log hands its creation again after a restart', async () => {
    const log = logRecorder();
    const p = log.stream('project-p1', { projectId: 'p1' });
    const events = [p('identity.ProjectCreated.v1', { name: 'Acme', createdAt: at(1) }), p('identity.ProjectClosed.v1', { reason: 'gone', closedAt: at(4) })];
    const model = await projected(projectsProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events);
    expect(await model.get('p1')).toMatchObject({ status: 'closed', _position: 2 });
  });

  it('serves the admin customer list filtered by standing and verification', async () => {
    const log = logRecorder();
    const model = await projected(projectsProjection);
    await model.handle(
      log.stream('project-a', { projectId: 'a' })('identity.ProjectCreated.v1', { name: 'A', createdAt: at(1) }),
      log.stream('project-b', { projectId: 'b' })('identity.ProjectCreated.v1', { name: 'B', createdAt: at(2) }),
      log.stream('project-b', { projectId: 'b' })('identity.ProjectSuspended.v1', { reason: 'x', suspendedAt: at(3) }),
      log.stream('admin-kyc-a', { projectId: 'a' })('admin.KycSubmitted.v1', { kycId: 'k1', organization, submittedAt: at(3) }),
    );
    const ids = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'createdAt', direction: 1 }] })).items.map((d) => d.id);
    expect(await ids({ status: 'active' })).toEqual(['a']);
    expect(await ids({ kycStatus: 'pending' })).toEqual(['a']);
    expect(await ids({ status: 'suspended', kycStatus: 'none' })).toEqual(['b']);
  });
});
