import { logRecorder, projected } from '../../test/support/projector';
import { notificationEndpointsProjection } from './notification-endpoints.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const created = { projectId: 'p1', type: 'webhook', url: 'https://hooks.example/x', email: null, events: ['job.failed'], enabled: true, secretRef: 'vault:whsec1', createdAt: at(0) };
const attempt = (m: number, attemptNo = 1) => ({ deliveryId: `d${m}`, projectId: 'p1', attempt: attemptNo, at: at(m), statusCode: 500, error: 'HTTP 500', durationMs: 3 });

describe('notification endpoints read model: the endpoints and their delivery health', () => {
  it('holds a created endpoint with the position of its create, and its secret\'s vault reference only', async () => {
    const log = logRecorder();
    log.stream('other', {})('x.Y.v1', {}); // something earlier in the log
    const e = log.stream('nendpoint-e1', { endpointId: 'e1' });
    const model = await projected(notificationEndpointsProjection);
    await model.handle(e('notifications.NotificationEndpointCreated.v1', created));
    const { createdAt, ...fields } = created;
    expect(await model.get('e1')).toEqual({ id: 'e1', _position: 2, ...fields, createdAt, createdPosition: 2, disabledAt: null, disabledReason: null, lastSuccessAt: null, failingSince: null });
  });

  it('keeps the first failure since the last success (the 5-day rule), cleared by a success', async () => {
    const log = logRecorder();
    const e = log.stream('nendpoint-e1', { endpointId: 'e1' });
    const d = log.stream('ndelivery-d', { endpointId: 'e1' });
    const model = await projected(notificationEndpointsProjection);
    await model.handle(e('notifications.NotificationEndpointCreated.v1', created));
    await model.handle(d('notifications.DeliveryAttemptFailed.v1', { ...attempt(10), retryAt: at(11) }), d('notifications.DeliveryAttemptFailed.v1', { ...attempt(11, 2), retryAt: null }));
    expect(await model.get('e1')).toMatchObject({ failingSince: at(10), lastSuccessAt: null });
    await model.handle(d('notifications.DeliveryAttemptSucceeded.v1', { ...attempt(20), statusCode: 200, error: null }));
    expect(await model.get('e1')).toMatchObject({ failingSince: null, lastSuccessAt: at(20) });
    await model.handle(d('notifications.DeliveryAttemptFailed.v1', { ...attempt(30), retryAt: at(31) }));
    expect(await model.get('e1')).toMatchObject({ failingSince: at(30), lastSuccessAt: at(20) });
  });

  it('disables an endpoint with its reason, takes it out of the fan-out\'s list, and removes it on delete', async () => {
    const log = logRecorder();
    const e = log.stream('nendpoint-e1', { endpointId: 'e1', projectId: 'p1' });
    const other = log.stream('nendpoint-e2', { endpointId: 'e2', projectId: 'p1' });
    const model = await projected(notificationEndpointsProjection);
    await model.handle(e('notifications.NotificationEndpointCreated.v1', created), other('notifications.NotificationEndpointCreated.v1', { ...created, type: 'email', url: null, email: 'ops@example.com', secretRef: null, createdAt: at(1) }));
    await model.handle(e('notifications.NotificationEndpointDisabled.v1', { reason: 'failing for 5 days', disabledAt: at(5) }));
    expect(await model.get('e1')).toMatchObject({ enabled: false, disabledAt: at(5), disabledReason: 'failing for 5 days' });
    const enabled = await model.collection.find({ filter: { projectId: 'p1', enabled: true }, sort: [{ field: 'createdAt', direction: 1 }] });
    expect(enabled.items.map((x) => x.id)).toEqual(['e2']);
    await model.handle(e('notifications.NotificationEndpointDeleted.v1', { secretRef: 'vault:whsec1', deletedAt: at(6) }));
    expect((await model.all()).map((x) => x.id)).toEqual(['e2']);
  });

  it('gives no endpoint to an attempt for one it does not have, and brings no deleted endpoint back on a replay', async () => {
    const log = logRecorder();
    const e = log.stream('nendpoint-e1', { endpointId: 'e1' });
    const lost = log.stream('ndelivery-x', { endpointId: 'gone' });
    const events = [lost('notifications.DeliveryAttemptSucceeded.v1', { ...attempt(1), statusCode: 200, error: null }), e('notifications.NotificationEndpointCreated.v1', created), e('notifications.NotificationEndpointDeleted.v1', { projectId: 'p1', secretRef: 'vault:whsec1', deletedAt: at(6) })];
    const model = await projected(notificationEndpointsProjection);
    await model.handle(...events);
    model.restart();
    await model.handle(...events.slice(2));
    expect(await model.all()).toEqual([]);
  });
});
