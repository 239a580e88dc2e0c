import { deciderSpec } from '../shared/decider-spec';
import { batchDecider, type RequestBatch } from './batch.decider';
import type { BatchEvent } from './events';

const given = deciderSpec(batchDecider);
const now = '2026-01-01T00:00:00.000Z';
const at = '2026-01-01T00:00:01.000Z';
const request: RequestBatch = { type: 'RequestBatch', batchId: 'b1', projectId: 'p1', action: 'stop', resourceType: 'instances', resourceIds: ['i1', 'i2'], now };
const requested: BatchEvent = { type: 'compute.BatchRequested.v1', data: { batchId: 'b1', projectId: 'p1', action: 'stop', resourceType: 'instances', resourceIds: ['i1', 'i2'], requestedAt: now } };
const dispatch = (resourceId: string, jobId = `j-${resourceId}`) => ({ type: 'RecordBatchItem', resourceId, jobId, now: at }) as const;
const reject = (resourceId: string) => ({ type: 'RecordBatchItem', resourceId, code: 'INVALID_STATE', error: 'Instance is stopped', now: at }) as const;
const dispatched = (resourceId: string, jobId = `j-${resourceId}`): BatchEvent => ({ type: 'compute.BatchItemDispatched.v1', data: { batchId: 'b1', resourceId, jobId, at } });
const rejected = (resourceId: string): BatchEvent => ({ type: 'compute.BatchItemRejected.v1', data: { batchId: 'b1', resourceId, code: 'INVALID_STATE', error: 'Instance is stopped', at } });

describe('batch decider', () => {
  describe('RequestBatch', () => {
    it('opens a batch over its resources', () => {
      given([]).when(request).then([requested]);
    });

    it('refuses a batch id that exists', () => {
      given([requested]).when(request).thenThrows('CONFLICT');
    });
  });

  describe('RecordBatchItem', () => {
    it('records a dispatched item with its job, and a rejected one with its refusal', () => {
      given([requested]).when(dispatch('i1')).then([dispatched('i1')]);
      given([requested]).when(reject('i2')).then([rejected('i2')]);
      given([requested, dispatched('i1')]).when(reject('i2')).then([rejected('i2')]);
    });

    it('settles each resource once (a replayed fan-out records nothing new)', () => {
      given([requested, dispatched('i1')]).when(dispatch('i1')).thenNothingHappens();
      given([requested, dispatched('i1')]).when(dispatch('i1', 'j-other')).thenNothingHappens();
      given([requested, rejected('i1')]).when(dispatch('i1')).thenNothingHappens();
      given([requested, dispatched('i1')]).when(reject('i1')).thenNothingHappens();
    });

    it('ignores a resource that is not part of the batch', () => {
      given([requested]).when(dispatch('i3')).thenNothingHappens();
      given([requested]).when(reject('i3')).thenNothingHappens();
    });

    it('answers NOT_FOUND for a batch that does not exist', () => {
      given([]).when(dispatch('i1')).thenThrows('NOT_FOUND');
      given([]).when(reject('i1')).thenThrows('NOT_FOUND');
    });
  });
});
