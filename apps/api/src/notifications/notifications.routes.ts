import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { DELIVERY_STATUSES, webhookIdOf } from '../../../../libs/domain/notifications/delivery.decider';
import { NOTIFICATION_TYPES, notificationSchema } from '../../../../libs/domain/notifications/notification.decider';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { EVENT_NAMES } from '../../../../contexts/registrations';
import { DELIVERIES_LIST, type DeliveryDoc } from '../../../../projections/notification-deliveries/notification-deliveries.projection';
import { ENDPOINTS_LIST, type EndpointDoc } from '../../../../projections/notification-endpoints/notification-endpoints.projection';
import { NOTIFICATIONS_BY_READ_LIST, NOTIFICATIONS_LIST, type NotificationDoc } from '../../../../projections/notifications/notifications.projection';
import { BusController } from '../common/bus-controller';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import {
  CreateEndpoint,
  CreateNotification,
  DeleteEndpoint,
  DeleteNotification,
  ForAllNotifications,
  GetEndpoint,
  GetNotification,
  ListDeliveries,
  ListEndpoints,
  ListNotifications,
  MarkNotificationRead,
  ResendDelivery,
  TestEndpoints,
} from '../../../../usecases/notifications/notifications.handlers';
import { inMemoryList, listOf } from '../../../../libs/http/src/list-query';

export { NOTIFICATION_HANDLERS } from '../../../../usecases/notifications/notifications.handlers';

const N_TYPE = 'notifications';
const E_TYPE = 'notification-endpoints';
const D_TYPE = 'notification-deliveries';
const NAME_TYPE = 'notification-event-names';
const common = { tag: 'Notifications', auth: 'project' } as const;
const read = 'notifications:read';
const write = 'notifications:write';
const idParams = z.object({ id: pathId });
const bool = z.enum(['true', 'false']).optional();

// ---------------------------------------------------------------- shapes
const notificationAttributes = z.object({ title: z.string(), message: z.string(), type: z.enum(NOTIFICATION_TYPES), read: z.boolean(), readAt: z.string().nullable(), createdAt: z.string() });
const endpointAttributes = z.object({
  type: z.enum(['webhook', 'email']),
  url: z.string().nullable(),
  email: z.string().nullable(),
  events: z.array(z.string()).describe('Published event names (GET /v1/notifications/events), or `*` for all'),
  enabled: z.boolean(),
  createdAt: z.string(),
  disabledAt: z.string().nullable().describe('Set when the endpoint was disabled after 5 days of failed deliveries'),
  disabledReason: z.string().nullable(),
  lastSuccessAt: z.string().nullable(),
  failingSince: z.string().nullable().describe('The first failed attempt since the last success'),
});
const createdEndpointAttributes = endpointAttributes.extend({ secret: z.string().nullable().describe('The webhook signing secret, shown in this answer only (write-only afterwards); null for email endpoints') });
const attemptSchema = z.object({ attempt: z.number().int(), at: z.string(), success: z.boolean(), statusCode: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number().int() });
const deliveryAttributes = z.object({
  endpointId: z.string(),
  webhookId: z.string().describe('The `webhook-id` header, the same on every attempt and re-send'),
  eventId: z.string(),
  eventName: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(attemptSchema).describe('Every attempt, oldest first'),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const eventNameAttributes = z.object({ name: z.string(), resource: z.string(), action: z.string() });
const testAttributes = z.object({
  total: z.number().int(),
  results: z.array(z.object({ endpointId: z.string(), type: z.enum(['webhook', 'email']), success: z.boolean(), statusCode: z.number().int().nullable(), error: z.string().nullable() })),
});

const notificationOf = (d: NotificationDoc) => ({ id: d.id, type: N_TYPE, attributes: { title: d.title, message: d.message, type: d.type, read: d.read, readAt: d.readAt, createdAt: d.createdAt } });
const endpointOf = (d: EndpointDoc) => ({
  id: d.id,
  type: E_TYPE,
  attributes: { type: d.type, url: d.url, email: d.email, events: d.events, enabled: d.enabled, createdAt: d.createdAt, disabledAt: d.disabledAt, disabledReason: d.disabledReason, lastSuccessAt: d.lastSuccessAt, failingSince: d.failingSince },
});
const deliveryOf = (d: DeliveryDoc) => ({
  id: d.id,
  type: D_TYPE,
  attributes: { endpointId: d.endpointId, webhookId: webhookIdOf(d.id), eventId: d.eventId, eventName: d.eventName, status: d.status, attempts: d.attempts, nextAttemptAt: d.dueAt, createdAt: d.createdAt, updatedAt: d.updatedAt },
});

/**
 * An endpoint's create answer rebuilt after a crash lost it (DECISIONS 5): an email endpoint's is the
 * create's own (its secret was null); a webhook's leaves the signing secret out, which is never shown twice.
 */
/**
 * A create's answer: the signing secret, once. A webhook endpoint without one is a request run again
 * after a crash lost its answer (DECISIONS 5): the secret is in the vault only, and not shown again.
 */
const createdEndpoint = (d: EndpointDoc, secret: string | null) =>
  d.type === 'webhook' && secret === null
    ? resource(E_TYPE, d.id, endpointOf(d).attributes, { meta: { secret: 'Not shown: the answer that carried it was lost in an outage. Delete the endpoint and create another for a secret you hold.' } })
    : resource(E_TYPE, d.id, { ...endpointOf(d).attributes, secret });

// ---------------------------------------------------------------- requests
const endpointBody = z
  .object({
    type: z.enum(['webhook', 'email']),
    url: z.string().min(1).max(2048).optional().describe('Required for a webhook: https, not resolving to loopback, link-local or private addresses'),
    email: z.email().max(254).optional().describe('Required for an email endpoint'),
    events: z.array(z.string().min(1).max(100)).min(1).max(200),
    secret: z.string().max(200).optional().describe('Webhook signing secret, `whsec_` + base64 of 24-64 bytes (Standard Webhooks); generated when absent and shown once'),
    enabled: z.boolean().default(true),
  })
  .superRefine((b, ctx) => {
    if (b.type === 'webhook' && b.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'url is required for a webhook endpoint' });
    if (b.type === 'webhook' && b.email !== undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: 'a webhook endpoint takes no email' });
    if (b.type === 'email' && b.email === undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: 'email is required for an email endpoint' });
    if (b.type === 'email' && b.url !== undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'an email endpoint takes no url' });
  });

// ---------------------------------------------------------------- routes
const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/notifications',
  summary: "List the project's notifications",
  permission: read,
  list: listOf(N_TYPE, [NOTIFICATIONS_LIST, NOTIFICATIONS_BY_READ_LIST]),
  query: z.object({ read: bool, type: z.enum(NOTIFICATION_TYPES).optional() }),
  responses: { 200: collectionSchema(N_TYPE, notificationAttributes) },
});
const createRoute = route({ ...common, method: 'POST', path: '/v1/notifications', summary: 'Create a notification', permission: write, type: N_TYPE, body: notificationSchema, idempotent: true, responses: { 201: resourceSchema(N_TYPE, notificationAttributes) } });
const getRoute = route({ ...common, method: 'GET', path: '/v1/notifications/{id}', summary: 'Get a notification', permission: read, params: idParams, responses: { 200: resourceSchema(N_TYPE, notificationAttributes) } });
const markRoute = route({
  ...common,
  method: 'PATCH',
  path: '/v1/notifications/{id}',
  summary: 'Mark a notification read (or unread)',
  permission: write,
  type: N_TYPE,
  params: idParams,
  body: z.object({ read: z.boolean() }),
  responses: { 200: resourceSchema(N_TYPE, notificationAttributes) },
});
const markAllRoute = route({
  ...common,
  method: 'PATCH',
  path: '/v1/notifications',
  summary: "Mark all the project's unread notifications read",
  permission: write,
  responses: { 200: z.object({ meta: z.object({ updated: z.number().int().describe('How many were marked read') }) }) },
});
const deleteRoute = route({ ...common, method: 'DELETE', path: '/v1/notifications/{id}', summary: 'Delete a notification', permission: write, params: idParams, responses: { 204: null } });
const deleteAllRoute = route({ ...common, method: 'DELETE', path: '/v1/notifications', summary: "Delete all the project's notifications", permission: write, responses: { 204: null } });

const eventsRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/notifications/events',
  summary: 'List the event names endpoints can subscribe to',
  description: 'Generated from the event types of every context (`<resource>.<past-tense verb>`, DECISIONS 10); `*` subscribes to all of them.',
  permission: read,
  list: inMemoryList(NAME_TYPE, ['name', 'resource'], 'generated from the event types of every context', 'name'),
  query: z.object({ resource: z.string().min(1).max(100).optional() }),
  responses: { 200: collectionSchema(NAME_TYPE, eventNameAttributes) },
});

const listEndpointsRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/notifications/endpoints',
  summary: "List the project's notification endpoints",
  permission: read,
  list: listOf(E_TYPE, ENDPOINTS_LIST),
  query: z.object({ type: z.enum(['webhook', 'email']).optional(), enabled: bool }),
  responses: { 200: collectionSchema(E_TYPE, endpointAttributes) },
});
const createEndpointRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/notifications/endpoints',
  summary: 'Create a webhook or email endpoint for named events',
  description:
    'A webhook URL must be https and must not resolve to loopback, link-local or private addresses (checked now and at each delivery) unless the operator allows private targets. The signing secret is returned in this answer only.',
  permission: write,
  type: E_TYPE,
  body: endpointBody,
  idempotent: true,
  responses: { 201: resourceSchema(E_TYPE, createdEndpointAttributes) },
});
const getEndpointRoute = route({ ...common, method: 'GET', path: '/v1/notifications/endpoints/{id}', summary: 'Get a notification endpoint', permission: read, params: idParams, responses: { 200: resourceSchema(E_TYPE, endpointAttributes) } });
const deleteEndpointRoute = route({ ...common, method: 'DELETE', path: '/v1/notifications/endpoints/{id}', summary: 'Delete a notification endpoint (its pending deliveries stop)', permission: write, params: idParams, responses: { 204: null } });
const deliveriesRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/notifications/endpoints/{id}/deliveries',
  summary: "List an endpoint's deliveries with their attempts",
  permission: read,
  params: idParams,
  list: listOf(D_TYPE, DELIVERIES_LIST),
  query: z.object({ status: z.enum(DELIVERY_STATUSES).optional() }),
  responses: { 200: collectionSchema(D_TYPE, deliveryAttributes) },
});
const resendRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/notifications/endpoints/{id}/deliveries/{deliveryId}/resend',
  summary: 'Send a failed delivery again (same webhook-id, a new round of retries)',
  permission: write,
  params: z.object({ id: pathId, deliveryId: pathId }),
  responses: { 200: resourceSchema(D_TYPE, deliveryAttributes) },
});
const testRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/notifications/test',
  summary: 'Send a test notification to every enabled endpoint and report each result',
  permission: write,
  responses: { 200: resourceSchema('notification-test', testAttributes) },
});

const projectOf = (p: Principal) => dataScopeOf(p);

/** Notifications, endpoints, deliveries and the published event names (spec 4.15, section 6, DECISIONS 10 and 17). */
@Controller()
export class NotificationsController extends BusController {
  @ApiRoute(eventsRoute)
  events(@Parsed('list') list: RouteInput<typeof eventsRoute>['list']) {
    const all = EVENT_NAMES.names.map((name) => ({ name, resource: name.slice(0, name.indexOf('.')), action: name.slice(name.indexOf('.') + 1) }));
    const matching = all.filter((n) => !list.filters.resource || n.resource === list.filters.resource);
    const key = list.sort[0] ?? { field: 'name', direction: 1 };
    matching.sort((a, b) => {
      const [x, y] = [a[key.field as 'name' | 'resource'] + a.name, b[key.field as 'name' | 'resource'] + b.name];
      return x === y ? 0 : x < y ? -key.direction : key.direction;
    });
    return listResult(matching.slice(list.skip, list.skip + list.limit).map((n) => ({ id: n.name, type: NAME_TYPE, attributes: n })), matching.length);
  }

  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListNotifications(projectOf(principal), list));
    return listResult(items.map(notificationOf), total);
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    const doc = await this.commands.execute(new CreateNotification(projectOf(principal), body, commandContext(req, principal)));
    return resource(N_TYPE, doc.id, notificationOf(doc).attributes);
  }

  @ApiRoute(markAllRoute)
  async markAll(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal) {
    return { meta: { updated: await this.commands.execute(new ForAllNotifications(projectOf(principal), 'read', commandContext(req, principal))) } };
  }

  @ApiRoute(deleteAllRoute)
  async deleteAll(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal) {
    await this.commands.execute(new ForAllNotifications(projectOf(principal), 'delete', commandContext(req, principal)));
  }

  @ApiRoute(testRoute)
  async test(@CurrentPrincipal() principal: Principal) {
    const results = await this.commands.execute(new TestEndpoints(projectOf(principal)));
    return resource('notification-test', uuidv7(), { total: results.length, results });
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    const doc = await this.queries.execute(new GetNotification(projectOf(principal), params.id));
    return resource(N_TYPE, doc.id, notificationOf(doc).attributes);
  }

  @ApiRoute(markRoute)
  async mark(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof markRoute>['params'], @Parsed('body') body: RouteInput<typeof markRoute>['body']) {
    const doc = await this.commands.execute(new MarkNotificationRead(projectOf(principal), params.id, body.read, commandContext(req, principal)));
    return resource(N_TYPE, doc.id, notificationOf(doc).attributes);
  }

  @ApiRoute(deleteRoute)
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deleteRoute>['params']) {
    await this.commands.execute(new DeleteNotification(projectOf(principal), params.id, commandContext(req, principal)));
  }

  @ApiRoute(listEndpointsRoute)
  async listEndpoints(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listEndpointsRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListEndpoints(projectOf(principal), list));
    return listResult(items.map(endpointOf), total);
  }

  @ApiRoute(createEndpointRoute)
  async createEndpoint(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createEndpointRoute>['body']) {
    const { doc, secret } = await this.commands.execute(new CreateEndpoint(projectOf(principal), body, commandContext(req, principal)));
    return createdEndpoint(doc, secret);
  }

  @ApiRoute(getEndpointRoute)
  async getEndpoint(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getEndpointRoute>['params']) {
    const doc = await this.queries.execute(new GetEndpoint(projectOf(principal), params.id));
    return resource(E_TYPE, doc.id, endpointOf(doc).attributes);
  }

  @ApiRoute(deleteEndpointRoute)
  async deleteEndpoint(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deleteEndpointRoute>['params']) {
    await this.commands.execute(new DeleteEndpoint(projectOf(principal), params.id, commandContext(req, principal)));
  }

  @ApiRoute(deliveriesRoute)
  async deliveries(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deliveriesRoute>['params'], @Parsed('list') list: RouteInput<typeof deliveriesRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListDeliveries(projectOf(principal), params.id, list));
    return listResult(items.map(deliveryOf), total);
  }

  @ApiRoute(resendRoute)
  async resend(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof resendRoute>['params']) {
    const doc = await this.commands.execute(new ResendDelivery(projectOf(principal), params.id, params.deliveryId, commandContext(req, principal)));
    return resource(D_TYPE, doc.id, deliveryOf(doc).attributes);
  }
}
