import { randomBytes } from 'node:crypto';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { v7 as uuidv7 } from 'uuid';
import { deliveryDecider } from '../../libs/domain/notifications/delivery.decider';
import { endpointDecider, type EndpointFields } from '../../libs/domain/notifications/endpoint.decider';
import { deliveryStream, endpointStream, notificationStream, type EndpointType } from '../../libs/domain/notifications/events';
import { notificationDecider, type NotificationFields } from '../../libs/domain/notifications/notification.decider';
import { addressRefusal, checkWebhookUrl } from '../../libs/domain/notifications/webhook-target';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { badRequest, notFound } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { notificationDeliveriesProjection, type DeliveryDoc } from '../../projections/notification-deliveries/notification-deliveries.projection';
import { notificationEndpointsProjection, type EndpointDoc } from '../../projections/notification-endpoints/notification-endpoints.projection';
import { notificationsProjection, type NotificationDoc } from '../../projections/notifications/notifications.projection';
import { EndpointSender, type SendResult } from '../../libs/runtime/src/endpoint-sender';
import { ownDoc, written } from '../jobs/job-writes';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { requestPathResolver } from '../../libs/runtime/src/name-resolver';
import type { AppConfig } from '../../libs/config/src/config';

type Found<D> = { items: D[]; total: number };

// ---------------------------------------------------------------- notifications
export class CreateNotification extends Command<NotificationDoc> {
  constructor(readonly projectId: string, readonly fields: NotificationFields, readonly context: CommandContext) {
    super();
  }
}
export class MarkNotificationRead extends Command<NotificationDoc> {
  constructor(readonly projectId: string, readonly notificationId: string, readonly read: boolean, readonly context: CommandContext) {
    super();
  }
}
/** Marks every unread notification read (`read: true`), or deletes every notification (`delete`); answers how many. */
export class ForAllNotifications extends Command<number> {
  constructor(readonly projectId: string, readonly action: 'read' | 'delete', readonly context: CommandContext) {
    super();
  }
}
export class DeleteNotification extends Command<void> {
  constructor(readonly projectId: string, readonly notificationId: string, readonly context: CommandContext) {
    super();
  }
}
export class GetNotification extends Query<NotificationDoc> {
  constructor(readonly projectId: string, readonly notificationId: string) {
    super();
  }
}
export class ListNotifications extends Query<Found<NotificationDoc>> {
  constructor(readonly projectId: string, readonly list: ListQuery<{ read?: 'true' | 'false'; type?: string }>) {
    super();
  }
}

const decideNotification = (ports: PortsOf<'events'>, id: string, command: Parameters<typeof notificationDecider.decide>[0], context: CommandContext) =>
  handleCommand(ports.events, notificationStream(id), notificationDecider, command, context);

@CommandHandler(CreateNotification)
export class CreateNotificationHandler implements ICommandHandler<CreateNotification> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, fields, context }: CreateNotification): Promise<NotificationDoc> {
    const id = requestScopedId(context, 'notification');
    const { position } = await decideNotification(this.ports, id, { type: 'CreateNotification', notificationId: id, projectId, fields, now: this.ports.now() }, context);
    await this.ports.waitForProjections(position, [notificationsProjection.name]);
    return written(this.ports, notificationsProjection, notificationStream(id), id, projectId, position, 'Notification');
  }
}

@CommandHandler(MarkNotificationRead)
export class MarkNotificationReadHandler implements ICommandHandler<MarkNotificationRead> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, notificationId, read, context }: MarkNotificationRead): Promise<NotificationDoc> {
    await ownDoc(this.ports, notificationsProjection, projectId, notificationId, 'Notification');
    const { position } = await decideNotification(this.ports, notificationId, { type: 'MarkNotificationRead', notificationId, projectId, read, now: this.ports.now() }, context);
    await this.ports.waitForProjections(position, [notificationsProjection.name]);
    return written(this.ports, notificationsProjection, notificationStream(notificationId), notificationId, projectId, position, 'Notification');
  }
}

@CommandHandler(DeleteNotification)
export class DeleteNotificationHandler implements ICommandHandler<DeleteNotification> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, notificationId, context }: DeleteNotification): Promise<void> {
    await ownDoc(this.ports, notificationsProjection, projectId, notificationId, 'Notification');
    const { position } = await decideNotification(this.ports, notificationId, { type: 'DeleteNotification', notificationId, projectId, now: this.ports.now() }, context);
    await this.ports.waitForProjections(position, [notificationsProjection.name]);
  }
}

/**
 * One event per notification (each is its own stream), 16 at a time, page after page of the
 * model until none is left that the request covers; then the answer waits for the model.
 */
@CommandHandler(ForAllNotifications)
export class ForAllNotificationsHandler implements ICommandHandler<ForAllNotifications> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, action, context }: ForAllNotifications): Promise<number> {
    const collection = await this.ports.projections.collection(notificationsProjection);
    const filter: Record<string, string | boolean> = action === 'read' ? { projectId, read: false } : { projectId };
    const done = new Set<string>();
    let last: number | null = null;
    for (;;) {
      const page = (await collection.find({ filter, sort: [{ field: 'createdAt', direction: 1 }], limit: 200, withTotal: false })).items.filter((d) => !done.has(d.id));
      if (page.length === 0) break;
      for (let i = 0; i < page.length; i += 16) {
        const results = await Promise.all(
          page.slice(i, i + 16).map((d) => {
            done.add(d.id);
            const now = this.ports.now();
            const command = action === 'read' ? { type: 'MarkNotificationRead' as const, notificationId: d.id, projectId, read: true, now } : { type: 'DeleteNotification' as const, notificationId: d.id, projectId, now };
            return decideNotification(this.ports, d.id, command, context).catch((err) => (err?.code === 'NOT_FOUND' ? { position: null } : Promise.reject(err)));
          }),
        );
        for (const r of results) if (r.position !== null) last = Math.max(last ?? 0, r.position);
      }
      await this.ports.waitForProjections(last, [notificationsProjection.name]);
    }
    return done.size;
  }
}

@QueryHandler(GetNotification)
export class GetNotificationHandler implements IQueryHandler<GetNotification> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, notificationId }: GetNotification): Promise<NotificationDoc> {
    return ownDoc(this.ports, notificationsProjection, projectId, notificationId, 'Notification');
  }
}

@QueryHandler(ListNotifications)
export class ListNotificationsHandler implements IQueryHandler<ListNotifications> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListNotifications): Promise<Found<NotificationDoc>> {
    const { read, type } = list.filters;
    const filter = { projectId, ...(read === undefined ? {} : { read: read === 'true' }), ...(type ? { type } : {}) };
    return (await this.ports.projections.collection(notificationsProjection)).find({ filter, ...pageOf(list) });
  }
}

// ---------------------------------------------------------------- endpoints
export interface EndpointInput {
  type: EndpointType;
  url?: string;
  email?: string;
  events: string[];
  secret?: string;
  enabled: boolean;
}

export class CreateEndpoint extends Command<{ doc: EndpointDoc; secret: string | null }> {
  constructor(readonly projectId: string, readonly input: EndpointInput, readonly context: CommandContext) {
    super();
  }
}
export class DeleteEndpoint extends Command<void> {
  constructor(readonly projectId: string, readonly endpointId: string, readonly context: CommandContext) {
    super();
  }
}
export class GetEndpoint extends Query<EndpointDoc> {
  constructor(readonly projectId: string, readonly endpointId: string) {
    super();
  }
}
export class ListEndpoints extends Query<Found<EndpointDoc>> {
  constructor(readonly projectId: string, readonly list: ListQuery<{ type?: EndpointType; enabled?: 'true' | 'false' }>) {
    super();
  }
}
export class ListDeliveries extends Query<Found<DeliveryDoc>> {
  constructor(readonly projectId: string, readonly endpointId: string, readonly list: ListQuery<{ status?: string }>) {
    super();
  }
}
export class ResendDelivery extends Command<DeliveryDoc> {
  constructor(readonly projectId: string, readonly endpointId: string, readonly deliveryId: string, readonly context: CommandContext) {
    super();
  }
}
export interface TestResult {
  endpointId: string;
  type: EndpointType;
  success: boolean;
  statusCode: number | null;
  error: string | null;
}
export class TestEndpoints extends Command<TestResult[]> {
  constructor(readonly projectId: string) {
    super();
  }
}

/** A secret in the form Standard Webhooks libraries take: `whsec_` and base64 of 24 to 64 random bytes. */
const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The webhook target rules at create (DECISIONS 10): the URL's form, then where its name resolves
 * now (a name that does not resolve yet is accepted: its deliveries fail and retry).
 */
async function targetRefusal(raw: string, config: AppConfig): Promise<string | null> {
  const allowPrivate = config.webhooks.allowPrivateTargets;
  const checked = checkWebhookUrl(raw, allowPrivate);
  if (!checked.ok) return checked.reason;
  if (allowPrivate) return null;
  // Bounded (DNS_TIMEOUT_MS): a name that does not answer in time counts as not resolving yet.
  const addresses = await requestPathResolver(config).lookup(checked.url.hostname).catch(() => []);
  return addresses.map((a) => addressRefusal(a.address, false)).find((r) => r !== null) ?? null;
}

@CommandHandler(CreateEndpoint)
export class CreateEndpointHandler implements ICommandHandler<CreateEndpoint> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'events' | 'now' | 'readBack' | 'registry' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, input, context }: CreateEndpoint): Promise<{ doc: EndpointDoc; secret: string | null }> {
    const problems: { detail: string; source: { pointer: string } }[] = [];
    input.events.forEach((name, i) => {
      if (!this.ports.registry.eventNames.isPublished(name)) problems.push({ detail: `events[${i}]: unknown event name "${name}" (the names are listed at GET /v1/notifications/events; "*" subscribes to all)`, source: { pointer: `/events/${i}` } });
    });
    if (input.type === 'webhook') {
      const refusal = await targetRefusal(input.url!, this.ports.config);
      if (refusal) problems.push({ detail: `url: ${refusal}`, source: { pointer: '/url' } });
      if (input.secret !== undefined) {
        const m = SECRET.exec(input.secret);
        const bytes = m ? Buffer.from(m[1], 'base64').length : 0;
        if (bytes < 24 || bytes > 64) problems.push({ detail: 'secret: must be "whsec_" followed by the base64 of 24 to 64 random bytes (Standard Webhooks); omit it to have one generated', source: { pointer: '/secret' } });
      }
    } else if (input.secret !== undefined) {
      problems.push({ detail: 'secret: only webhook endpoints are signed', source: { pointer: '/secret' } });
    }
    if (problems.length) throw badRequest(problems);

    const endpointId = requestScopedId(context, 'endpoint');
    // A re-run after a crash (DECISIONS 5) finds the endpoint its first run created, secret kept: it makes and keeps none again.
    const recovering = context.metadata.recovering === true;
    const secret = input.type === 'webhook' && !recovering ? input.secret ?? newSigningSecret() : null;
    // The secret goes to the vault; the event holds its reference (DECISIONS 11).
    const secretRef = secret ? await this.ports.vault.put(projectId, { secret }) : null;
    const fields: EndpointFields = { type: input.type, url: input.url ?? null, email: input.email ?? null, events: [...new Set(input.events)], enabled: input.enabled, secretRef };
    try {
      const { position } = await handleCommand(this.ports.events, endpointStream(endpointId), endpointDecider, { type: 'CreateEndpoint', endpointId, projectId, fields, now: this.ports.now() }, context);
      await this.ports.waitForProjections(position, [notificationEndpointsProjection.name]);
      return { doc: await written(this.ports, notificationEndpointsProjection, endpointStream(endpointId), endpointId, projectId, position, 'Notification endpoint'), secret };
    } catch (err) {
      if (secretRef) await this.ports.vault.delete(secretRef).catch(() => undefined);
      throw err;
    }
  }
}

@CommandHandler(DeleteEndpoint)
export class DeleteEndpointHandler implements ICommandHandler<DeleteEndpoint> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, endpointId, context }: DeleteEndpoint): Promise<void> {
    const doc = await ownDoc(this.ports, notificationEndpointsProjection, projectId, endpointId, 'Notification endpoint');
    const { position } = await handleCommand(this.ports.events, endpointStream(endpointId), endpointDecider, { type: 'DeleteEndpoint', endpointId, projectId, now: this.ports.now() }, context);
    // Crypto-shredding: the secret is forgotten with the endpoint.
    if (doc.secretRef) await this.ports.vault.delete(doc.secretRef);
    await this.ports.waitForProjections(position, [notificationEndpointsProjection.name]);
  }
}

@QueryHandler(GetEndpoint)
export class GetEndpointHandler implements IQueryHandler<GetEndpoint> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, endpointId }: GetEndpoint): Promise<EndpointDoc> {
    return ownDoc(this.ports, notificationEndpointsProjection, projectId, endpointId, 'Notification endpoint');
  }
}

@QueryHandler(ListEndpoints)
export class ListEndpointsHandler implements IQueryHandler<ListEndpoints> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListEndpoints): Promise<Found<EndpointDoc>> {
    const { type, enabled } = list.filters;
    const filter = { projectId, ...(type ? { type } : {}), ...(enabled === undefined ? {} : { enabled: enabled === 'true' }) };
    return (await this.ports.projections.collection(notificationEndpointsProjection)).find({ filter, ...pageOf(list) });
  }
}

@QueryHandler(ListDeliveries)
export class ListDeliveriesHandler implements IQueryHandler<ListDeliveries> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, endpointId, list }: ListDeliveries): Promise<Found<DeliveryDoc>> {
    await ownDoc(this.ports, notificationEndpointsProjection, projectId, endpointId, 'Notification endpoint');
    const filter = { endpointId, ...(list.filters.status ? { status: list.filters.status } : {}) };
    return (await this.ports.projections.collection(notificationDeliveriesProjection)).find({ filter, ...pageOf(list) });
  }
}

@CommandHandler(ResendDelivery)
export class ResendDeliveryHandler implements ICommandHandler<ResendDelivery> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, endpointId, deliveryId, context }: ResendDelivery): Promise<DeliveryDoc> {
    await ownDoc(this.ports, notificationEndpointsProjection, projectId, endpointId, 'Notification endpoint');
    const stream = deliveryStream(deliveryId);
    const { position } = await handleCommand(this.ports.events, stream, deliveryDecider, { type: 'ResendDelivery', deliveryId, projectId, endpointId, now: this.ports.now() }, context);
    await this.ports.waitForProjections(position, [notificationDeliveriesProjection.name]);
    const doc = await this.ports.readBack(notificationDeliveriesProjection, stream, deliveryId, position);
    if (!doc) throw notFound('Delivery not found');
    return doc;
  }
}

/**
 * Sends a `notification.test` message to each enabled endpoint of the project, as a delivery
 * would (signed webhook or email), and reports each one's real result. Nothing is recorded.
 */
@CommandHandler(TestEndpoints)
export class TestEndpointsHandler implements ICommandHandler<TestEndpoints> {
  private sender: EndpointSender | null = null;

  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'config' | 'mailer' | 'now' | 'projections' | 'vault'>) {}

  async execute({ projectId }: TestEndpoints): Promise<TestResult[]> {
    // Its lookups are the request path's, bounded like the create's.
    this.sender ??= new EndpointSender(this.ports.mailer, this.ports.config.webhooks.allowPrivateTargets, () => this.ports.clock.now(), 32, requestPathResolver(this.ports.config).callback);
    const endpoints = (await (await this.ports.projections.collection(notificationEndpointsProjection)).find({ filter: { projectId, enabled: true }, sort: [{ field: 'createdAt', direction: 1 }], limit: 1000, withTotal: false })).items;
    const results: TestResult[] = [];
    for (let i = 0; i < endpoints.length; i += 16) {
      results.push(...(await Promise.all(endpoints.slice(i, i + 16).map((ep) => this.test(projectId, ep)))));
    }
    return results;
  }

  private async test(projectId: string, ep: EndpointDoc): Promise<TestResult> {
    const secret = ep.secretRef ? ((await this.ports.vault.get(ep.secretRef))?.secret ?? null) : null;
    const webhookId = `msg_test_${uuidv7()}`;
    const body = JSON.stringify({ type: 'notification.test', timestamp: this.ports.now(), data: { projectId, endpointId: ep.id, message: 'A test notification: this endpoint receives deliveries.' } });
    const r: SendResult = await this.sender!.send({ type: ep.type, url: ep.url, email: ep.email, secret }, { webhookId, name: 'notification.test', body });
    return { endpointId: ep.id, type: ep.type, success: r.success, statusCode: r.statusCode, error: r.error };
  }
}

export const NOTIFICATION_HANDLERS = [
  CreateNotificationHandler,
  MarkNotificationReadHandler,
  DeleteNotificationHandler,
  ForAllNotificationsHandler,
  GetNotificationHandler,
  ListNotificationsHandler,
  CreateEndpointHandler,
  DeleteEndpointHandler,
  GetEndpointHandler,
  ListEndpointsHandler,
  ListDeliveriesHandler,
  ResendDeliveryHandler,
  TestEndpointsHandler,
];
