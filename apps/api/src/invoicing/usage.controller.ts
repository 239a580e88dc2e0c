import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { CURRENCIES } from '../../../../libs/domain/invoicing/events';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { ResourceUsage } from '../../../../usecases/invoicing/project-usage';
import type { GatewayModelUsage } from '../../../../usecases/invoicing/gateway-usage';
import { BusController } from '../common/bus-controller';
import { dataScopeOf } from '../common/resource-lifecycle';
import { GetBillingOverview, GetUsage } from '../../../../usecases/invoicing/invoices.handlers';
import { inMemoryList } from '../../../../libs/http/src/list-query';

/** The longest usage window (DECISIONS 15). */
const MAX_WINDOW_DAYS = 366;
const DAY_MS = 86_400_000;

/** A date (that whole day) or a date-time; `end` of a date means the end of that day. */
const instant = (end: boolean) =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((s) => (s.length === 10 ? Date.parse(`${s}T00:00:00Z`) + (end ? DAY_MS : 0) : Date.parse(s)));
const windowQuery = z
  .object({
    startDate: instant(false).optional().describe('ISO 8601 date or date-time; default: the start of the month of endDate'),
    endDate: instant(true).optional().describe('ISO 8601 date (inclusive: to the end of that day) or date-time (exclusive); default: now'),
  })
  .superRefine((q, ctx) => {
    if (q.startDate === undefined || q.endDate === undefined) return;
    if (q.endDate < q.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'endDate must not be before startDate' });
    else if (q.endDate - q.startDate > MAX_WINDOW_DAYS * DAY_MS) ctx.addIssue({ code: 'custom', path: ['endDate'], message: `the window must not exceed ${MAX_WINDOW_DAYS} days` });
  });

const USAGE = 'usage';
const usageAttributes = z.object({
  resourceType: z.enum(['instance', 'server', 'gateway']).describe('gateway: one model\'s inference gateway spend in the window (resourceId and name: the model; no hours)'),
  resourceId: z.string(),
  name: z.string(),
  plan: z.string(),
  hourlyPriceCents: z.number().int().describe('The plan price per hour the resource was requested at'),
  currency: z.enum(CURRENCIES),
  hours: z.number().int().describe('Started hours in the window while running (DECISIONS 9)'),
  costCents: z.number().int(),
  days: z.array(z.object({ date: z.string(), hours: z.number().int(), costCents: z.number().int() })).describe('Per UTC day, by the day each hour started in (a gateway row: by the day of each call)'),
  calls: z.number().int().nullable().describe('A gateway row: the upstream attempts that produced tokens; null otherwise'),
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
});
const gatewayItem = (g: GatewayModelUsage) => ({
  id: `gateway-${g.model}`,
  type: USAGE,
  attributes: {
    resourceType: 'gateway' as const,
    resourceId: g.model,
    name: g.model,
    plan: 'inference',
    hourlyPriceCents: 0,
    currency: 'USD' as const,
    hours: 0,
    costCents: g.costCents,
    days: g.days.map((d) => ({ date: d.date, hours: 0, costCents: d.costCents })),
    calls: g.requests,
    inputTokens: g.inputTokens,
    outputTokens: g.outputTokens,
  },
});
const usageItem = (u: ResourceUsage | GatewayModelUsage) => ('meter' in u ? resourceItem(u) : gatewayItem(u));
const resourceItem = (u: ResourceUsage) => ({
  id: u.meter.id,
  type: USAGE,
  attributes: {
    resourceType: u.meter.resourceType,
    resourceId: u.meter.id,
    name: u.meter.name,
    plan: u.meter.plan,
    hourlyPriceCents: u.meter.hourlyPriceCents,
    currency: 'USD' as const,
    hours: u.hours,
    costCents: u.costCents,
    days: u.days,
    calls: null,
    inputTokens: null,
    outputTokens: null,
  },
});

const OVERVIEW = 'billing-overview';
const overviewAttributes = z.object({
  totalSpendCents: z.number().int().describe('Paid invoices in the billing currency'),
  totalCreditsCents: z.number().int(),
  upcomingChargesCents: z.number().int().describe('Usage accrued and not yet invoiced'),
  currency: z.enum(CURRENCIES),
  balances: z.array(z.object({ currency: z.enum(CURRENCIES), balanceCents: z.number().int() })),
  paymentCount: z.number().int(),
  creditCount: z.number().int(),
  invoiceCount: z.number().int(),
});

const usageMeta = {
  startDate: z.string().describe('The window start (inclusive), ISO 8601'),
  endDate: z.string().describe('The window end (exclusive), ISO 8601'),
  currency: z.enum(CURRENCIES),
  totalHours: z.number().int(),
  totalCostCents: z.number().int(),
};

const common = { tag: 'Billing', auth: 'project' as const, permission: 'billing:read' };
const usageList = inMemoryList(USAGE, ['costCents', 'hours', 'name', 'createdAt'], 'computed per resource and day from the usage meters of the window, then sorted', '-costCents');
const usageDescription =
  'Per resource (instances and servers) and per UTC day: the hours started while running in [startDate, endDate) at the plan price, computed from the event history; and per model, the inference gateway spend (the sum of its usage events, by whole UTC days). `meta` carries the window, currency, totalHours and totalCostCents. An end before the start, or a window over 366 days: 400 INVALID_QUERY.';
const usageRoute = route({ ...common, method: 'GET', path: '/v1/billing/usage', summary: 'Compute usage and its cost per resource and day', description: usageDescription, list: usageList, query: windowQuery, responses: { 200: collectionSchema(USAGE, usageAttributes, usageMeta) } });
const iamUsageRoute = route({ ...common, method: 'GET', path: '/v1/iam/usage', summary: 'Usage and cost per resource in a window (the same numbers as GET /v1/billing/usage)', description: usageDescription, list: usageList, query: windowQuery, responses: { 200: collectionSchema(USAGE, usageAttributes, usageMeta) } });
const overviewRoute = route({ ...common, method: 'GET', path: '/v1/billing/overview', summary: "The project's billing overview (spec 2.10)", responses: { 200: resourceSchema(OVERVIEW, overviewAttributes) } });

/** Usage (DECISIONS 15/16) and the billing overview (spec 2.10). */
@Controller()
export class UsageController extends BusController {
  @ApiRoute(usageRoute)
  usage(@CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof usageRoute>) {
    return this.queries.execute(new GetUsage(dataScopeOf(principal), { start: p.list.filters.startDate ?? null, end: p.list.filters.endDate ?? null }, p.list, usageItem));
  }

  @ApiRoute(iamUsageRoute)
  iamUsage(@CurrentPrincipal() principal: Principal, @Parsed() p: RouteInput<typeof iamUsageRoute>) {
    return this.queries.execute(new GetUsage(dataScopeOf(principal), { start: p.list.filters.startDate ?? null, end: p.list.filters.endDate ?? null }, p.list, usageItem));
  }

  @ApiRoute(overviewRoute)
  async overview(@CurrentPrincipal() principal: Principal) {
    const { projectId, ...attributes } = await this.queries.execute(new GetBillingOverview(dataScopeOf(principal)));
    return resource(OVERVIEW, projectId, attributes);
  }
}
