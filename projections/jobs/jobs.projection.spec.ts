import { jobsProjection, type JobDoc } from './jobs.projection';
import { streamRecorder } from '../../test/support/fixtures';

const recorded = streamRecorder('job-j1', { jobId: 'j1' });

describe('jobs projection', () => {
  it('clears the error of a failed job when a manual retry re-opens it, and keeps each round\'s own', () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const steps: Array<[string, Record<string, unknown>]> = [
      ['jobs.JobEnqueued.v1', { projectId: 'p1', type: 'instance.create', resourceType: 'instance', resourceId: 'i1', operation: 'create', payload: {}, maxAttempts: 3, enqueuedAt: at(0) }],
      ['jobs.JobAttemptStarted.v1', { attempt: 1, startedAt: at(1) }],
      ['jobs.JobAttemptFailed.v1', { attempt: 1, error: 'first round', failedAt: at(2), retryAt: null }],
      ['jobs.JobFailed.v1', { attempts: 3, error: 'first round', failedAt: at(3) }],
    ];
    let doc: JobDoc | null = null;
    for (const [type, data] of steps) doc = jobsProjection.evolve(doc, recorded(type, data));
    expect(doc).toMatchObject({ status: 'failed', error: 'first round' });

    doc = jobsProjection.evolve(doc, recorded('jobs.JobRetried.v1', { retriedAt: at(10), maxAttempts: 3 }));
    expect(doc).toMatchObject({ status: 'pending', attempts: 0, retries: 1, error: null, completedAt: null });

    doc = jobsProjection.evolve(doc, recorded('jobs.JobAttemptStarted.v1', { attempt: 1, startedAt: at(11) }));
    doc = jobsProjection.evolve(doc, recorded('jobs.JobAttemptFailed.v1', { attempt: 1, error: 'second round', failedAt: at(12), retryAt: at(13) }));
    expect(doc).toMatchObject({ status: 'pending', attempts: 1, error: 'second round' });
  });
});
