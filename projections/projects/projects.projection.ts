import { indexesFor, type ListShape } from '../../libs/readstore/src/list-shapes';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import type { ProjectEvent } from '../../libs/domain/identity/events';
import { IdentityEventTypes, workspaceOfCreated } from '../../libs/domain/identity/events';
import type { ProjectStatus } from '../../libs/domain/identity/project.decider';
import { KycEventTypes, type KycEvent, type KycStatus } from '../../libs/domain/admin/kyc';

export interface ProjectDoc extends ReadDoc {
  name: string;
  /**
   * The workspace the project belongs to (DECISIONS 15). Absent from documents folded before
   * workspaces, whose projects are each their own workspace: read it with `workspaceOfProject`.
   */
  workspaceId?: string;
  createdAt: string;
  /** `active | suspended | closed` (DECISIONS 18); the auth pipeline reads it on every request. */
  status: ProjectStatus;
  /** The reason given with the last status change, null while never changed. */
  statusReason: string | null;
  statusChangedAt: string | null;
  /** Who created the project: the actor of ProjectCreated (`admin:<keyId>`, `system:bootstrap`). */
  createdBy: string;
  /** The latest KYC request's status, `none` before the first. */
  kycStatus: KycStatus;
  kycRequestId: string | null;
  updatedAt: string;
}

/** A project's workspace: its own for a document from before workspaces (nothing has moved a project since). */
export const workspaceOfProject = (doc: ProjectDoc): string => doc.workspaceId ?? doc.id;

/** What its list routes and polls query (each shape is served by an index, see projections/list-indexes.spec.ts). */
export const ADMIN_PROJECTS_LIST: ListShape = { query: 'GET /v1/admin/projects', equal: [], sortable: ['createdAt', 'name'] };
// Filters are checked while walking (projects are few next to instances; an index per filter and sort is not worth it).
export const CUSTOMERS_LIST: ListShape = { query: 'GET /v1/admin/customers', equal: [], residual: ['status', 'kycStatus'], sortable: ['createdAt', 'name', 'updatedAt', 'status'] };
const LISTS: ListShape[] = [ADMIN_PROJECTS_LIST, CUSTOMERS_LIST];

/** Projects with their standing and verification: `/v1/admin/projects`, `/v1/admin/customers` and the auth pipeline. */
export const projectsProjection: DocumentProjection<ProjectDoc> = {
  name: 'projects',
  version: 2,
  eventTypes: [...Object.values(IdentityEventTypes).filter((t) => t.startsWith('identity.Project')), ...Object.values(KycEventTypes)],
  creates: [IdentityEventTypes.ProjectCreated],
  lists: LISTS,
  // The indexes that cover the list shapes (libs/readstore/src/list-shapes.ts).
  indexes: indexesFor(LISTS),
  documentId: (event) => (event.data as { projectId: string }).projectId,
  evolve: (current, recorded) => {
    const event = { type: recorded.type, data: recorded.data } as ProjectEvent | KycEvent;
    const status = (doc: ProjectDoc, to: ProjectStatus, reason: string | undefined, at: string): ProjectDoc => ({ ...doc, _position: recorded.position, status: to, statusReason: reason ?? null, statusChangedAt: at, updatedAt: at });
    const kyc = (doc: ProjectDoc, to: KycStatus, kycId: string, at: string): ProjectDoc => ({ ...doc, _position: recorded.position, kycStatus: to, kycRequestId: kycId, updatedAt: at });
    switch (event.type) {
      case 'identity.ProjectCreated.v1': {
        const d = event.data;
        return { id: d.projectId, _position: recorded.position, name: d.name, workspaceId: workspaceOfCreated(d), createdAt: d.createdAt, status: 'active', statusReason: null, statusChangedAt: null, createdBy: recorded.metadata.actor ?? 'unknown', kycStatus: 'none', kycRequestId: null, updatedAt: d.createdAt };
      }
      case 'identity.ProjectSuspended.v1':
        return current && status(current, 'suspended', event.data.reason, event.data.suspendedAt);
      case 'identity.ProjectReactivated.v1':
        return current && status(current, 'active', event.data.reason, event.data.reactivatedAt);
      case 'identity.ProjectClosed.v1':
        return current && status(current, 'closed', event.data.reason, event.data.closedAt);
      case 'admin.KycSubmitted.v1':
        return current && kyc(current, 'pending', event.data.kycId, event.data.submittedAt);
      case 'admin.KycApproved.v1':
        return current && kyc(current, 'approved', event.data.kycId, event.data.decidedAt);
      case 'admin.KycRejected.v1':
        return current && kyc(current, 'rejected', event.data.kycId, event.data.decidedAt);
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
