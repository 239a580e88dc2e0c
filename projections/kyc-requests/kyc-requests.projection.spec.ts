import { logRecorder, projected } from '../../test/support/projector';
import { kycRequestsProjection } from './kyc-requests.projection';

const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
const organization = { legalName: 'Acme Ltd', country: 'NG' };

describe('KYC requests read model: the admin queue and the customer\'s requests', () => {
  it('queues a submission as pending and records the decision on it', async () => {
    const log = logRecorder();
    const kyc = log.stream('admin-kyc-p1', { projectId: 'p1' });
    const model = await projected(kycRequestsProjection);
    await model.handle(kyc('admin.KycSubmitted.v1', { kycId: 'k1', organization, submittedAt: at(1) }));
    expect(await model.get('k1')).toEqual({ id: 'k1', _position: 1, projectId: 'p1', organization, status: 'pending', reason: null, decidedBy: null, decidedAt: null, createdAt: at(1), updatedAt: at(1) });
    await model.handle(kyc('admin.KycRejected.v1', { kycId: 'k1', reason: 'blurry scan', decidedBy: 'admin:a', decidedAt: at(2) }));
    expect(await model.get('k1')).toMatchObject({ status: 'rejected', reason: 'blurry scan', decidedBy: 'admin:a', decidedAt: at(2), updatedAt: at(2), createdAt: at(1) });
    await model.handle(kyc('admin.KycSubmitted.v1', { kycId: 'k2', organization, submittedAt: at(3) }), kyc('admin.KycApproved.v1', { kycId: 'k2', decidedBy: 'admin:b', decidedAt: at(4) }));
    expect(await model.get('k2')).toMatchObject({ status: 'approved', reason: null, decidedBy: 'admin:b', decidedAt: at(4) });
    expect(await model.get('k1')).toMatchObject({ status: 'rejected' });
  });

  it('serves the pending queue, oldest first', async () => {
    const log = logRecorder();
    const model = await projected(kycRequestsProjection);
    await model.handle(
      log.stream('admin-kyc-p2', { projectId: 'p2' })('admin.KycSubmitted.v1', { kycId: 'late', organization, submittedAt: at(5) }),
      log.stream('admin-kyc-p1', { projectId: 'p1' })('admin.KycSubmitted.v1', { kycId: 'early', organization, submittedAt: at(1) }),
      log.stream('admin-kyc-p3', { projectId: 'p3' })('admin.KycSubmitted.v1', { kycId: 'done', organization, submittedAt: at(2) }),
      log.stream('admin-kyc-p3', { projectId: 'p3' })('admin.KycApproved.v1', { kycId: 'done', decidedBy: 'admin:a', decidedAt: at(3) }),
    );
    const { items } = await model.collection.find({ filter: { status: 'pending' }, sort: [{ field: 'createdAt', direction: 1 }] });
    expect(items.map((d) => d.id)).toEqual(['early', 'late']);
  });

  it('creates no request from a decision on one it never saw submitted, and puts no decided request back in the queue on a replay', async () => {
    const log = logRecorder();
    const kyc = log.stream('admin-kyc-p1', { projectId: 'p1' });
    const lost = kyc('admin.KycApproved.v1', { kycId: 'k0', decidedBy: 'admin:a', decidedAt: at(1) });
    const events = [kyc('admin.KycSubmitted.v1', { kycId: 'k1', organization, submittedAt: at(1) }), kyc('admin.KycApproved.v1', { kycId: 'k1', decidedBy: 'admin:a', decidedAt: at(2) })];
    const model = await projected(kycRequestsProjection);
    await model.handle(lost, ...events);
    model.restart();
    await model.handle(...events);
    expect((await model.all()).map((d) => [d.id, d.status])).toEqual([['k1', 'approved']]);
  });
});
