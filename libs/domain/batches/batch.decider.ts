import { DomainError, type Decider } from '../shared/domain-error';
import type { BatchAction, BatchEvent, BatchResourceType } from './events';

export type BatchState =
  | { status: 'none' }
  | { status: 'open'; batchId: string; resourceIds: string[]; settled: Set<string> };

export type RequestBatch = { type: 'RequestBatch'; batchId: string; projectId: string; action: BatchAction; resourceType: BatchResourceType; resourceIds: string[]; now: string };
export type RecordBatchItem = { type: 'RecordBatchItem'; resourceId: string; now: string } & ({ jobId: string } | { code: string; error: string });
export type BatchCommand = RequestBatch | RecordBatchItem;

export const batchDecider: Decider<BatchCommand, BatchEvent, BatchState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'compute.BatchRequested.v1':
        return { status: 'open', batchId: event.data.batchId, resourceIds: event.data.resourceIds, settled: new Set() };
      case 'compute.BatchItemDispatched.v1':
      case 'compute.BatchItemRejected.v1':
        return state.status === 'none' ? state : { ...state, settled: new Set([...state.settled, event.data.resourceId]) };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestBatch') {
      if (state.status !== 'none') throw new DomainError('CONFLICT', `Batch ${command.batchId} already exists`);
      const { type: _t, now, ...data } = command;
      return [{ type: 'compute.BatchRequested.v1', data: { ...data, requestedAt: now } }];
    }
    if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Batch not found');
    // Each resource is settled once, even when the fan-out is replayed after a crash.
    if (!state.resourceIds.includes(command.resourceId) || state.settled.has(command.resourceId)) return [];
    if ('jobId' in command) return [{ type: 'compute.BatchItemDispatched.v1', data: { batchId: state.batchId, resourceId: command.resourceId, jobId: command.jobId, at: command.now } }];
    return [{ type: 'compute.BatchItemRejected.v1', data: { batchId: state.batchId, resourceId: command.resourceId, code: command.code, error: command.error, at: command.now } }];
  },
};
