import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listOf } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { CUSTOMERS_LIST } from '../../../../projections/projects/projects.projection';
import { BusController } from '../common/bus-controller';
import { pathId } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { ChangeCustomerStanding, GetCustomer, KYC_STATUSES, ListCustomers, STATUSES, type CustomerView } from '../../../../usecases/admin/customers';

const TYPE = 'customers';

const customerAttributes = z.object({
  name: z.string(),
  status: z.enum(STATUSES),
  statusReason: z.string().nullable().describe('The reason given with the last suspend, reactivate or close'),
  statusChangedAt: z.string().nullable(),
  ownerEmail: z.string().nullable().describe("The project's oldest active owner member's email; null when it has none (a project run by keys alone: see createdBy)"),
  createdBy: z.string().describe('Who created the project: `admin:<keyId>` or `system:bootstrap`'),
  kyc: z.object({ status: z.enum(KYC_STATUSES), requestId: z.string().nullable() }),
  balances: z.array(z.object({ currency: z.string(), amountCents: z.number().int() })).describe("The project's wallet balances per currency (a wallet appears with its first movement)"),
  createdAt: z.string(),
  updatedAt: z.string(),
});



export function customerAttributesOf({ doc, ownerEmail, balances }: CustomerView): z.infer<typeof customerAttributes> {
  return {
    name: doc.name,
    status: doc.status,
    statusReason: doc.statusReason,
    statusChangedAt: doc.statusChangedAt,
    ownerEmail,
    createdBy: doc.createdBy,
    kyc: { status: doc.kycStatus, requestId: doc.kycRequestId },
    balances,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}
const customerResource = (view: CustomerView) => ({ id: view.doc.id, type: TYPE, attributes: customerAttributesOf(view) });
const customerDocument = (view: CustomerView) => resource(TYPE, view.doc.id, customerAttributesOf(view));


const reason = z.string().trim().min(1).max(500);
const idParams = z.object({ id: pathId });
const common = { tag: 'Admin', auth: 'admin' } as const;

const listRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/admin/customers',
  summary: 'List customers (projects) with status, KYC status and balances (platform admin)',
  list: listOf(TYPE, CUSTOMERS_LIST),
  query: z.object({ status: z.enum(STATUSES).optional(), kycStatus: z.enum(KYC_STATUSES).optional() }),
  responses: { 200: collectionSchema(TYPE, customerAttributes) },
});
const getRoute = route({ ...common, method: 'GET', path: '/v1/admin/customers/{id}', summary: 'Get a customer (platform admin)', params: idParams, responses: { 200: resourceSchema(TYPE, customerAttributes) } });
const patchRoute = route({
  ...common,
  method: 'PATCH',
  path: '/v1/admin/customers/{id}',
  summary: 'Suspend or reactivate a customer (platform admin)',
  description: "A suspended project's credentials get 403 FORBIDDEN on every route from the next request on; its data is kept. A closed customer takes no change (409 INVALID_STATE).",
  type: TYPE,
  params: idParams,
  body: z.object({ status: z.enum(['active', 'suspended']), reason: reason.optional().describe('Why (optional; recorded in the event when given, DECISIONS 18)') }).strict(),
  responses: { 200: resourceSchema(TYPE, customerAttributes) },
});
const deleteRoute = route({
  ...common,
  method: 'DELETE',
  path: '/v1/admin/customers/{id}',
  summary: 'Close a customer (platform admin): its keys get 401, its running resources are terminated by jobs, its history is kept',
  description: 'Answers the closed customer. Closing a closed customer is 409 INVALID_STATE.',
  params: idParams,
  query: z.object({ reason: reason.optional() }),
  responses: { 200: resourceSchema(TYPE, customerAttributes) },
});

@Controller()
export class AdminCustomersController extends BusController {
  @ApiRoute(listRoute)
  async list(@Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListCustomers(list));
    return listResult(items.map(customerResource), total);
  }

  @ApiRoute(getRoute)
  async get(@Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return customerDocument(await this.queries.execute(new GetCustomer(params.id)));
  }

  @ApiRoute(patchRoute)
  async patch(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof patchRoute>['params'], @Parsed('body') body: RouteInput<typeof patchRoute>['body']) {
    return customerDocument(await this.commands.execute(new ChangeCustomerStanding(params.id, body, commandContext(req, principal))));
  }

  @ApiRoute(deleteRoute)
  async close(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deleteRoute>['params'], @Parsed('query') query: RouteInput<typeof deleteRoute>['query']) {
    return customerDocument(await this.commands.execute(new ChangeCustomerStanding(params.id, { status: 'closed', reason: query.reason ?? 'Closed by the platform administrator' }, commandContext(req, principal))));
  }
}
