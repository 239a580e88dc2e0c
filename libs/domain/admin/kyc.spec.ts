import { deciderSpec } from '../shared/decider-spec';
import { kycDecider, type KycEvent } from './kyc';

const given = deciderSpec(kycDecider);
const now = '2026-01-01T00:00:00.000Z';
const organization = { legalName: 'Acme Ltd', registrationNumber: 'RC-1', country: 'NG', address: '1 Marina, Lagos', contactName: 'Ada', contactEmail: 'ada@acme.test', website: null };
const submit = (kycId: string) => ({ type: 'SubmitKyc', kycId, projectId: 'p1', organization, now }) as const;
const submitted = (kycId: string): KycEvent => ({ type: 'admin.KycSubmitted.v1', data: { kycId, projectId: 'p1', organization, submittedAt: now } });
const decide = (kycId: string, decision: 'approve' | 'reject', reason?: string) => ({ type: 'DecideKyc', kycId, projectId: 'p1', decision, reason, decidedBy: 'admin:a1', now }) as const;
const rejected = (kycId: string): KycEvent => ({ type: 'admin.KycRejected.v1', data: { kycId, projectId: 'p1', reason: 'blurry', decidedBy: 'admin:a1', decidedAt: now } });

describe('KYC decider', () => {
  it('submits a request; a second while one is pending is a CONFLICT', () => {
    given([]).when(submit('k1')).then([submitted('k1')]);
    given([submitted('k1')]).when(submit('k2')).thenThrows('CONFLICT', /k1 is still pending/);
  });

  it('approves or rejects (with a reason) a pending request once', () => {
    given([submitted('k1')]).when(decide('k1', 'approve')).then([{ type: 'admin.KycApproved.v1', data: { kycId: 'k1', projectId: 'p1', decidedBy: 'admin:a1', decidedAt: now } }]);
    given([submitted('k1')]).when(decide('k1', 'reject', ' blurry ')).then([rejected('k1')]);
    given([submitted('k1')]).when(decide('k1', 'reject', '  ')).thenThrows('BAD_REQUEST', /reason/);
    given([submitted('k1'), rejected('k1')]).when(decide('k1', 'approve')).thenThrows('INVALID_STATE', /already rejected/);
    given([]).when(decide('k9', 'approve')).thenThrows('NOT_FOUND');
  });

  it('takes a new request after a rejection, none after an approval', () => {
    given([submitted('k1'), rejected('k1')]).when(submit('k2')).then([submitted('k2')]);
    given([submitted('k1'), { type: 'admin.KycApproved.v1', data: { kycId: 'k1', projectId: 'p1', decidedBy: 'admin:a1', decidedAt: now } }]).when(submit('k2')).thenThrows('INVALID_STATE', /already verified/);
  });
});
