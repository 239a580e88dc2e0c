import { v7 as uuidv7 } from 'uuid';
import { deliveryIdFor } from '../../libs/domain/notifications/delivery.decider';
import { eventNameCatalogue } from '../../libs/domain/notifications/event-names';
import { PgliteSqlClient } from '../../libs/eventstore/src/sql/sql-client';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { notificationEndpointsProjection } from '../../projections/notification-endpoints/notification-endpoints.projection';
import { projected } from '../../test/support/projector';
import type { NewDelivery } from './deliverer';
import { DeliveryFanOut, projectOfEvent } from './fan-out';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const PROVISIONED = 'compute.InstanceProvisioned.v1';
const TERMINATED = 'compute.InstanceTerminated.v1';
const HIDDEN = 'compute.InstanceProvisioningStarted.v1';
const names = eventNameCatalogue([PROVISIONED, TERMINATED, HIDDEN], [HIDDEN]);
const provisioned = names.nameOf(PROVISIONED)!;
const terminated = names.nameOf(TERMINATED)!;

/** The fan-out on a real (embedded) event store, with the endpoints read model fed from that log. */
describe('notification fan-out: one delivery per published event and subscribed endpoint', () => {
  let events: SqlEventStore;
  beforeAll(async () => {
    events = await SqlEventStore.open(await PgliteSqlClient.open(), { schema: 'es_fanout' });
  });
  afterAll(() => events.close());

  const append = async (stream: string, type: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}) => {
    await events.append(stream, [{ id: uuidv7(), type, data, metadata: { schemaVersion: 1, ...metadata } }], { expectedRevision: 'any' });
    return (await events.readStream(stream)).at(-1)!;
  };
  const endpoint = (id: string, projectId: string, subscribed: string[]) =>
    append(`nendpoint-${id}`, 'notifications.NotificationEndpointCreated.v1', { endpointId: id, projectId, type: 'webhook', url: `https://hooks.example/${id}`, email: null, events: subscribed, enabled: true, secretRef: `vault:${id}`, createdAt: at(0) });

  /**
   * A fan-out as the runtime wires it: `endpointsAt` brings the endpoints model up to the position
   * from the log, as its runner would (`stalledAt`: a model that stays behind that position).
   */
  async function fanOut(stalledAt?: number) {
    const model = await projected(notificationEndpointsProjection);
    let fed = 0;
    const endpointsAt = async (position: number) => {
      const upTo = Math.min(position, stalledAt ?? position);
      const more = (await events.readAll({ fromPosition: fed, maxCount: 10_000 })).filter((e) => e.position <= upTo);
      if (more.length > 0) await model.handle(...more);
      fed = Math.max(fed, upTo);
      return fed >= position;
    };
    const handed: NewDelivery[][] = [];
    const fan = new DeliveryFanOut({ events, names, endpoints: async () => model.collection, endpointsAt, now: () => at(30), deliverNew: async (d) => void handed.push(d) });
    return { fan, handed };
  }

  it('schedules an event for the enabled endpoints of its project that subscribe to its name and existed before it', async () => {
    const before = await append('instance-i0', PROVISIONED, { instanceId: 'i0' }, { projectId: 'p1' });
    await endpoint('named', 'p1', [provisioned]);
    await endpoint('all', 'p1', ['*']);
    await endpoint('other-name', 'p1', [terminated]);
    await endpoint('other-project', 'p2', ['*']);
    await endpoint('disabled', 'p1', ['*']);
    await append('nendpoint-disabled', 'notifications.NotificationEndpointDisabled.v1', { endpointId: 'disabled', projectId: 'p1', reason: 'by hand', disabledAt: at(1) });
    const e1 = await append('instance-i1', PROVISIONED, { instanceId: 'i1' }, { projectId: 'p1', correlationId: 'corr-1' });
    const e2 = await append('instance-i2', TERMINATED, { instanceId: 'i2', projectId: 'p2' });
    const hidden = await append('instance-i3', HIDDEN, { instanceId: 'i3' }, { projectId: 'p1' });
    const nobody = await append('instance-i4', PROVISIONED, { instanceId: 'i4' });
    const late = await endpoint('late', 'p1', ['*']);

    const { fan, handed } = await fanOut();
    expect(await fan.handle([before, e1, e2, hidden, nobody, late])).toBe(true);
    expect(handed).toHaveLength(1);
    const byId = (d: NewDelivery) => `${d.endpointId}:${d.schedule.eventId}`;
    expect(handed[0].map(byId).sort()).toEqual([`all:${e1.id}`, `named:${e1.id}`, `other-project:${e2.id}`].sort());
    const named = handed[0].find((d) => d.endpointId === 'named')!;
    expect(named).toEqual({
      deliveryId: deliveryIdFor(e1.id, 'named'),
      endpointId: 'named',
      projectId: 'p1',
      schedule: { eventId: e1.id, eventPosition: e1.position, eventName: provisioned, scheduledAt: at(30) },
      metadata: { correlationId: 'corr-1', causationId: e1.id, projectId: 'p1', actor: 'system:notifications', mode: 'live' },
      // The event was in the log before this process started: its delivery may have been recorded by an earlier one.
      mayExist: true,
    });
    // The project comes from the metadata, else from the data.
    expect([e1, e2, nobody].map(projectOfEvent)).toEqual(['p1', 'p2', null]);
  });

  it('derives the same delivery ids when a batch is handed again, and says which deliveries may already exist', async () => {
    await endpoint('all-b', 'pb', ['*']);
    const first = await append('instance-b0', PROVISIONED, { instanceId: 'b0' }, { projectId: 'pb' });
    const { fan, handed } = await fanOut();
    expect(await fan.handle([first])).toBe(true);
    // Recorded after this process handled its first batch: no earlier process can have handed it over.
    const fresh = await append('instance-b1', PROVISIONED, { instanceId: 'b1' }, { projectId: 'pb' });
    expect(await fan.handle([fresh])).toBe(true);
    expect(await fan.handle([fresh])).toBe(true);
    expect(handed.map((batch) => batch.map((d) => [d.deliveryId, d.mayExist]))).toEqual([[[deliveryIdFor(first.id, 'all-b'), true]], [[deliveryIdFor(fresh.id, 'all-b'), false]], [[deliveryIdFor(fresh.id, 'all-b'), true]]]);
  });

  it('refuses a batch while the endpoints model is behind it (the batch is retried), and passes over a batch nothing subscribes to', async () => {
    const ep = await endpoint('all-c', 'pc', ['*']);
    const e1 = await append('instance-c1', PROVISIONED, { instanceId: 'c1' }, { projectId: 'pc' });
    const behind = await fanOut(ep.position);
    await expect(behind.fan.handle([e1])).rejects.toThrow(/behind/);
    expect(behind.handed).toEqual([]);

    const e2 = await append('instance-c2', PROVISIONED, { instanceId: 'c2' }, { projectId: 'p9' });
    const hidden = await append('instance-c3', HIDDEN, { instanceId: 'c3' }, { projectId: 'pc' });
    const { fan, handed } = await fanOut();
    expect(await fan.handle([e2])).toBe(false);
    expect(await fan.handle([hidden])).toBe(false);
    expect(handed).toEqual([]);
  });
});
