import { deliveryDecider, MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, type DeliveryCommand, type DeliveryState } from './delivery.decider';
import { dueForDisable } from './endpoint.decider';
import { eventNameCatalogue, subscribes } from './event-names';
import type { DeliveryEvent } from './events';
import fc from 'fast-check';
import { checkWebhookUrl } from './webhook-target';

describe('published event names', () => {
  const catalogue = eventNameCatalogue(
    [
      'compute.InstanceRequested.v1',
      'compute.InstanceActionRequested.v1',
      'compute.InstanceStopped.v1',
      'compute.InstanceTemplateCreated.v1',
      'compute.InstanceTemplateCreated.v2',
      'jobs.JobEnqueued.v1',
      'jobs.JobFailed.v1',
      'jobs.JobAttemptFailed.v1',
      'storage.FileSystemRequested.v1',
      'storage.FileSystemOperationRequested.v1',
      'storage.FileSystemOperationCompleted.v1',
      'files.FileCreated.v1',
      'billing.InvoicePaid.v1',
      'notifications.NotificationEndpointCreated.v1',
      'notifications.NotificationEndpointDisabled.v1',
      'not a type',
    ],
    ['notifications.NotificationEndpointCreated.v1'],
  );

  it('names each type <resource>.<past-tense verb>, a resource request as created, versions once', () => {
    expect(catalogue.names).toEqual([
      'file.created',
      'file_system.created',
      'file_system.operation_completed',
      'file_system.operation_requested',
      'instance.action_requested',
      'instance.created',
      'instance.stopped',
      'instance_template.created',
      'invoice.paid',
      'job.attempt_failed',
      'job.enqueued',
      'job.failed',
      'notification_endpoint.disabled',
    ]);
    expect(catalogue.nameOf('compute.InstanceTemplateCreated.v1')).toBe('instance_template.created');
    expect(catalogue.nameOf('notifications.NotificationEndpointCreated.v1')).toBeNull();
    expect(catalogue.nameOf('compute.Unknown.v1')).toBeNull();
    expect([catalogue.isPublished('*'), catalogue.isPublished('job.failed'), catalogue.isPublished('job.exploded')]).toEqual([true, true, false]);
    expect([subscribes(['*'], 'job.failed'), subscribes(['job.failed'], 'job.failed'), subscribes(['instance.created'], 'job.failed')]).toEqual([true, true, false]);
  });
});

describe('delivery decider', () => {
  const fold = (events: DeliveryEvent[]) => events.reduce((s, e) => deliveryDecider.evolve(s, e), deliveryDecider.initialState());
  const run = (history: DeliveryEvent[], command: DeliveryCommand) => [...history, ...deliveryDecider.decide(command, fold(history))];
  const t0 = '2026-01-01T00:00:00.000Z';
  const scheduled = run([], { type: 'ScheduleDelivery', deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', eventId: 'ev1', eventPosition: 7, eventName: 'job.failed', now: t0 });
  const fail = (history: DeliveryEvent[], at: string) => run(history, { type: 'RecordAttempt', deliveryId: 'd1', attempt: (fold(history) as { attempts: number }).attempts + 1, outcome: { success: false, statusCode: 500, error: 'HTTP 500', durationMs: 3, at } });

  it('schedules once, retries on the schedule for more than 24 hours, then fails; a re-send starts a new round', () => {
    expect(deliveryDecider.decide({ type: 'ScheduleDelivery', deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', eventId: 'ev1', eventPosition: 7, eventName: 'job.failed', now: t0 }, fold(scheduled))).toEqual([]);
    let history = scheduled;
    let at = Date.parse(t0);
    for (let i = 0; i < MAX_DELIVERY_ATTEMPTS; i++) {
      history = fail(history, new Date(at).toISOString());
      const state = fold(history) as Extract<DeliveryState, { attempts: number }>;
      if (i < RETRY_DELAYS_MS.length) {
        expect(Date.parse(state.dueAt!) - at).toBe(RETRY_DELAYS_MS[i]);
        at = Date.parse(state.dueAt!);
      } else expect(state).toMatchObject({ status: 'failed', dueAt: null, attempts: 8 });
    }
    expect(at - Date.parse(t0)).toBeGreaterThanOrEqual(24 * 3600_000);
    // a stale report of an earlier attempt changes nothing
    expect(deliveryDecider.decide({ type: 'RecordAttempt', deliveryId: 'd1', attempt: 3, outcome: { success: true, statusCode: 200, error: null, durationMs: 1, at: t0 } }, fold(history))).toEqual([]);
    const resent = run(history, { type: 'ResendDelivery', deliveryId: 'd1', projectId: 'p1', endpointId: 'e1', now: t0 });
    expect(fold(resent)).toMatchObject({ status: 'pending', attempts: 8 });
    expect(fold(fail(resent, t0))).toMatchObject({ status: 'pending', attempts: 9, dueAt: new Date(Date.parse(t0) + RETRY_DELAYS_MS[0]).toISOString() });
    expect(() => deliveryDecider.decide({ type: 'ResendDelivery', deliveryId: 'd1', projectId: 'p2', endpointId: 'e1', now: t0 }, fold(history))).toThrow('Delivery not found');
    expect(() => deliveryDecider.decide({ type: 'ResendDelivery', deliveryId: 'd1', projectId: 'p1', endpointId: 'e1', now: t0 }, fold(scheduled))).toThrow(/Only a failed delivery/);
  });

  it('records a success once, and a final failure without retry', () => {
    const ok = run(scheduled, { type: 'RecordAttempt', deliveryId: 'd1', attempt: 1, outcome: { success: true, statusCode: 204, error: null, durationMs: 2, at: t0 } });
    expect(fold(ok)).toMatchObject({ status: 'delivered', attempts: 1, dueAt: null });
    expect(deliveryDecider.decide({ type: 'RecordAttempt', deliveryId: 'd1', attempt: 2, outcome: { success: true, statusCode: 204, error: null, durationMs: 2, at: t0 } }, fold(ok))).toEqual([]);
    const gone = run(scheduled, { type: 'RecordAttempt', deliveryId: 'd1', attempt: 1, outcome: { success: false, final: true, statusCode: null, error: 'endpoint deleted', durationMs: 0, at: t0 } });
    expect(fold(gone)).toMatchObject({ status: 'failed', dueAt: null });
  });

  it("records a first attempt as the delivery's one event (its schedule on it), folding and retrying as after a DeliveryScheduled", () => {
    const schedule = { eventId: 'ev1', eventPosition: 7, eventName: 'job.failed', scheduledAt: t0 };
    const first = (outcome: Extract<DeliveryCommand, { type: 'RecordFirstAttempt' }>['outcome']) => run([], { type: 'RecordFirstAttempt', deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', schedule, outcome });
    const ok = first({ success: true, statusCode: 200, error: null, durationMs: 2, at: t0 });
    expect(ok).toEqual([{ type: 'notifications.DeliveryAttemptSucceeded.v1', data: { deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', attempt: 1, statusCode: 200, error: null, durationMs: 2, at: t0, schedule } }]);
    // The older shape (DeliveryScheduled, then the attempt without a schedule) folds to the same state.
    const older = run(scheduled, { type: 'RecordAttempt', deliveryId: 'd1', attempt: 1, outcome: { success: true, statusCode: 200, error: null, durationMs: 2, at: t0 } });
    expect(fold(ok)).toEqual(fold(older));
    expect(fold(ok)).toMatchObject({ status: 'delivered', attempts: 1, eventId: 'ev1', eventPosition: 7, endpointId: 'e1' });
    // Once anything is recorded, a first attempt records nothing (a replayed fan-out).
    expect(deliveryDecider.decide({ type: 'RecordFirstAttempt', deliveryId: 'd1', endpointId: 'e1', projectId: 'p1', schedule, outcome: { success: true, statusCode: 200, error: null, durationMs: 2, at: t0 } }, fold(scheduled))).toEqual([]);
    // A failed first attempt is retried on the same schedule, and fails for good after the same budget.
    let history = first({ success: false, statusCode: 500, error: 'HTTP 500', durationMs: 3, at: t0 });
    expect(fold(history)).toMatchObject({ status: 'pending', attempts: 1, dueAt: new Date(Date.parse(t0) + RETRY_DELAYS_MS[0]).toISOString() });
    for (let i = 1; i < MAX_DELIVERY_ATTEMPTS; i++) history = fail(history, t0);
    expect(fold(history)).toMatchObject({ status: 'failed', attempts: MAX_DELIVERY_ATTEMPTS, dueAt: null });
    expect(fold(first({ success: false, final: true, statusCode: null, error: 'endpoint disabled', durationMs: 0, at: t0 }))).toMatchObject({ status: 'failed', dueAt: null });
  });

  it('disables after 5 days of failures, not before', () => {
    expect(dueForDisable(null, t0)).toBe(false);
    expect(dueForDisable(t0, new Date(Date.parse(t0) + 5 * 86400_000 - 1).toISOString())).toBe(false);
    expect(dueForDisable(t0, new Date(Date.parse(t0) + 5 * 86400_000).toISOString())).toBe(true);
  });
});

describe('webhook targets', () => {
  it('takes https to public addresses; with the operator setting, http and private ones too', () => {
    expect(checkWebhookUrl('https://hooks.example.com/a', false).ok).toBe(true);
    expect(checkWebhookUrl('https://8.8.8.8/a', false).ok).toBe(true);
    for (const url of ['http://hooks.example.com', 'https://127.0.0.2', 'https://[::1]', 'https://172.16.0.1', 'https://100.64.0.1', 'https://0.0.0.0', 'ftp://x', 'not a url']) {
      expect([url, checkWebhookUrl(url, false).ok]).toEqual([url, false]);
    }
    expect(checkWebhookUrl('http://127.0.0.1:8080/hook', true).ok).toBe(true);
    expect(checkWebhookUrl('ftp://127.0.0.1/hook', true).ok).toBe(false);
  });

  it('refuses a loopback name however it is spelled: a trailing dot, upper case, a subdomain of localhost', () => {
    const names = fc.tuple(fc.constantFrom('localhost', 'LocalHost', 'api.localhost', 'A.B.LOCALHOST', '127.0.0.1', '[::1]'), fc.boolean(), fc.option(fc.integer({ min: 1, max: 65535 })), fc.webPath());
    fc.assert(
      fc.property(names, ([name, dot, port, path]) => {
        const url = `https://${name}${dot && !name.startsWith('[') ? '.' : ''}${port === null ? '' : `:${port}`}${path}`;
        expect([url, checkWebhookUrl(url, false).ok]).toEqual([url, false]);
        expect([url, checkWebhookUrl(url, true).ok]).toEqual([url, true]);
      }),
    );
    expect(checkWebhookUrl('https://localhost./h', false)).toMatchObject({ ok: false, reason: expect.stringMatching(/loopback/) });
    expect(checkWebhookUrl('https://hooks.example.com./h', false).ok).toBe(true);
  });
});
