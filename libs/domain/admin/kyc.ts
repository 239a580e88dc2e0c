import { z } from 'zod';
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';

/** What a customer submits for verification (`POST /v1/kyc`, an extension of spec 4.17; DECISIONS 18). */
export const kycSubmissionSchema = z
  .object({
    legalName: z.string().trim().min(1).max(200),
    registrationNumber: z.string().trim().min(1).max(64),
    country: z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code such as NG or US'),
    address: z.string().trim().min(1).max(500),
    contactName: z.string().trim().min(1).max(200),
    contactEmail: z.string().email().max(254),
    website: z.string().url().max(2048).nullable().default(null),
  })
  .strict();
export type KycSubmission = z.output<typeof kycSubmissionSchema>;

export type KycRequestStatus = 'pending' | 'approved' | 'rejected';
/** The project's verification as the customer and the admin see it: its latest request's status, or `none`. */
export type KycStatus = 'none' | KycRequestStatus;

export type KycSubmitted = DomainEvent<'admin.KycSubmitted.v1', { kycId: string; projectId: string; organization: KycSubmission; submittedAt: string }>;
export type KycApproved = DomainEvent<'admin.KycApproved.v1', { kycId: string; projectId: string; decidedBy: string; decidedAt: string }>;
export type KycRejected = DomainEvent<'admin.KycRejected.v1', { kycId: string; projectId: string; reason: string; decidedBy: string; decidedAt: string }>;
export type KycEvent = KycSubmitted | KycApproved | KycRejected;

export const KycEventTypes = { KycSubmitted: 'admin.KycSubmitted.v1', KycApproved: 'admin.KycApproved.v1', KycRejected: 'admin.KycRejected.v1' } as const;

/** One stream per project (category `admin`: the admin topic) holds its requests in order, so "one pending request at a time" is a revision check. */
export const kycStream = (projectId: string) => `admin-kyc-${projectId}`;

export type KycState = { requests: Record<string, KycRequestStatus>; pending: string | null; latest: KycStatus };

export type SubmitKyc = { type: 'SubmitKyc'; kycId: string; projectId: string; organization: KycSubmission; now: string };
export type DecideKyc = { type: 'DecideKyc'; kycId: string; projectId: string; decision: 'approve' | 'reject'; reason?: string; decidedBy: string; now: string };
export type KycCommand = SubmitKyc | DecideKyc;

export const kycDecider: Decider<KycCommand, KycEvent, KycState> = {
  initialState: () => ({ requests: {}, pending: null, latest: 'none' }),
  evolve: (state, event) => {
    const status: KycRequestStatus = event.type === 'admin.KycSubmitted.v1' ? 'pending' : event.type === 'admin.KycApproved.v1' ? 'approved' : 'rejected';
    return { requests: { ...state.requests, [event.data.kycId]: status }, pending: status === 'pending' ? event.data.kycId : null, latest: status };
  },
  decide: (command, state) => {
    if (command.type === 'SubmitKyc') {
      if (state.pending) throw new DomainError('CONFLICT', `KYC request ${state.pending} is still pending; one request at a time`);
      if (state.latest === 'approved') throw new DomainError('INVALID_STATE', 'This project is already verified (KYC approved)');
      const checked = kycSubmissionSchema.safeParse(command.organization);
      if (!checked.success) throw new DomainError('BAD_REQUEST', `Invalid organization details: ${checked.error.issues.map((i) => i.path.join('.')).join(', ')}`);
      return [{ type: 'admin.KycSubmitted.v1', data: { kycId: command.kycId, projectId: command.projectId, organization: command.organization, submittedAt: command.now } }];
    }
    const current = state.requests[command.kycId];
    if (!current) throw new DomainError('NOT_FOUND', `KYC request ${command.kycId} not found`);
    if (current !== 'pending') throw new DomainError('INVALID_STATE', `KYC request ${command.kycId} is already ${current}; it cannot be ${command.decision === 'approve' ? 'approved' : 'rejected'}`);
    const base = { kycId: command.kycId, projectId: command.projectId, decidedBy: command.decidedBy, decidedAt: command.now };
    if (command.decision === 'approve') return [{ type: 'admin.KycApproved.v1', data: base }];
    const reason = command.reason?.trim();
    if (!reason) throw new DomainError('BAD_REQUEST', 'A rejection needs a reason');
    return [{ type: 'admin.KycRejected.v1', data: { ...base, reason } }];
  },
};
