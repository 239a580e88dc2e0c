import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { KycEventTypes, type KycEvent, type KycRequestStatus, type KycSubmission } from '../../libs/domain/admin/kyc';

export interface KycRequestDoc extends ReadDoc {
  projectId: string;
  organization: KycSubmission;
  status: KycRequestStatus;
  /** A rejection's reason. */
  reason: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const KYC_LIST: ListShape = { query: 'GET /v1/admin/kyc?status=', equal: ['status'], sortable: ['createdAt', 'updatedAt', 'status'] };
const LISTS: ListShape[] = [KYC_LIST];

/** KYC requests (DECISIONS 18): the admin's queue (`GET /v1/admin/kyc`, pending by default) and the customer's latest request. */
export const kycRequestsProjection: DocumentProjection<KycRequestDoc> = {
  name: 'kyc_requests',
  version: 1,
  eventTypes: Object.values(KycEventTypes),
  creates: [KycEventTypes.KycSubmitted],
  lists: LISTS,
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { kycId: string }).kycId,
  evolve: (current, recorded) => {
    const event = { type: recorded.type, data: recorded.data } as KycEvent;
    switch (event.type) {
      case 'admin.KycSubmitted.v1': {
        const d = event.data;
        return { id: d.kycId, _position: recorded.position, projectId: d.projectId, organization: d.organization, status: 'pending', reason: null, decidedBy: null, decidedAt: null, createdAt: d.submittedAt, updatedAt: d.submittedAt };
      }
      case 'admin.KycApproved.v1':
        return current && { ...current, _position: recorded.position, status: 'approved', decidedBy: event.data.decidedBy, decidedAt: event.data.decidedAt, updatedAt: event.data.decidedAt };
      case 'admin.KycRejected.v1':
        return current && { ...current, _position: recorded.position, status: 'rejected', reason: event.data.reason, decidedBy: event.data.decidedBy, decidedAt: event.data.decidedAt, updatedAt: event.data.decidedAt };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
