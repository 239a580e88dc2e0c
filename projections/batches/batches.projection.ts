import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { BatchEventTypes, type BatchAction, type BatchEvent, type BatchResourceType } from '../../libs/domain/batches/events';

export interface BatchItem {
  resourceId: string;
  jobId: string | null;
  rejected: { code: string; error: string } | null;
}

export interface BatchDoc extends ReadDoc {
  projectId: string;
  action: BatchAction;
  resourceType: BatchResourceType;
  items: BatchItem[];
  createdAt: string;
  updatedAt: string;
}

export const batchesProjection: DocumentProjection<BatchDoc> = {
  name: 'batches',
  version: 1,
  eventTypes: BatchEventTypes,
  indexes: [{ fields: [{ field: 'projectId', direction: 1 }, { field: 'createdAt', direction: -1 }] }],
  documentId: (e) => (e.data as { batchId: string }).batchId,
  evolve: (current, recorded: RecordedEvent) => {
    const event = { type: recorded.type, data: recorded.data } as BatchEvent;
    switch (event.type) {
      case 'compute.BatchRequested.v1':
        return {
          id: event.data.batchId,
          _position: recorded.position,
          projectId: event.data.projectId,
          action: event.data.action,
          resourceType: event.data.resourceType,
          items: event.data.resourceIds.map((resourceId) => ({ resourceId, jobId: null, rejected: null })),
          createdAt: event.data.requestedAt,
          updatedAt: event.data.requestedAt,
        };
      case 'compute.BatchItemDispatched.v1':
      case 'compute.BatchItemRejected.v1': {
        if (!current) return null;
        const d = event.data;
        const items = current.items.map((i) =>
          i.resourceId !== d.resourceId ? i : event.type === 'compute.BatchItemDispatched.v1' ? { ...i, jobId: event.data.jobId } : { ...i, rejected: { code: event.data.code, error: event.data.error } },
        );
        return { ...current, items, updatedAt: d.at };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
