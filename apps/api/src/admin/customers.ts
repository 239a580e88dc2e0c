import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { projectStream } from '../../../../libs/domain/identity/events';
import { projectDecider, type ProjectCommand } from '../../../../libs/domain/identity/project.decider';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import { listOf, type ListQuery } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { CUSTOMERS_LIST, projectsProjection, type ProjectDoc } from '../../../../projections/projects/projects.projection';
import { membersProjection, projectOwnerQuery } from '../../../../projections/members/members.projection';
import { billingWalletsProjection } from '../../../../projections/billing-wallets/billing-wallets.projection';
import { BusController } from '../common/bus-controller';
import { pathId } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { PORTS } from '../tokens';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

const TYPE = 'customers';
const STATUSES = ['active', 'suspended', 'closed'] as const;
const KYC_STATUSES = ['none', 'pending', 'approved', 'rejected'] as const;

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

/** A customer is a project as the platform admin sees it (DECISIONS 18), with its owner and wallets. */
export interface CustomerView {
  doc: ProjectDoc;
  ownerEmail: string | null;
  balances: { currency: string; amountCents: number }[];
}

/** The owner's email (members model) and the balances (billing wallets model) of each project. */
async function customerViews(ports: PortsOf<'projections'>, docs: ProjectDoc[]): Promise<CustomerView[]> {
  const [members, wallets] = await Promise.all([ports.projections.collection(membersProjection), ports.projections.collection(billingWalletsProjection)]);
  // One indexed query per project and model (FerretDB cannot push `$in` down: it would decode every document).
  return Promise.all(
    docs.map(async (doc) => {
      const [owners, held] = await Promise.all([
        members.find(projectOwnerQuery(doc.id)),
        wallets.find({ filter: { projectId: doc.id }, sort: [{ field: 'currency', direction: 1 }], limit: 100, withTotal: false }),
      ]);
      return { doc, ownerEmail: owners.items[0]?.email ?? null, balances: held.items.map((w) => ({ currency: w.currency, amountCents: w.balanceCents })) };
    }),
  );
}

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

export class ListCustomers extends Query<{ items: CustomerView[]; total: number }> {
  constructor(readonly list: ListQuery<{ status?: (typeof STATUSES)[number]; kycStatus?: (typeof KYC_STATUSES)[number] }>) {
    super();
  }
}

export class GetCustomer extends Query<CustomerView> {
  constructor(readonly projectId: string) {
    super();
  }
}

/** Suspend, reactivate (PATCH) or close (DELETE) a project: events on the project's own stream. */
export class ChangeCustomerStanding extends Command<CustomerView> {
  constructor(
    readonly projectId: string,
    readonly change: { status: 'active' | 'suspended'; reason?: string } | { status: 'closed'; reason: string },
    readonly context: CommandContext,
  ) {
    super();
  }
}

@QueryHandler(ListCustomers)
export class ListCustomersHandler implements IQueryHandler<ListCustomers> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute({ list }: ListCustomers) {
    const filter: Record<string, string> = {};
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.kycStatus) filter.kycStatus = list.filters.kycStatus;
    const { items, total } = await (await this.ports.projections.collection(projectsProjection)).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
    return { items: await customerViews(this.ports, items), total };
  }
}

@QueryHandler(GetCustomer)
export class GetCustomerHandler implements IQueryHandler<GetCustomer> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId }: GetCustomer) {
    const doc = await (await this.ports.projections.collection(projectsProjection)).get(projectId);
    if (!doc) throw notFound(`Customer ${projectId} not found`);
    return (await customerViews(this.ports, [doc]))[0];
  }
}

@CommandHandler(ChangeCustomerStanding)
export class ChangeCustomerStandingHandler implements ICommandHandler<ChangeCustomerStanding> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, change, context }: ChangeCustomerStanding): Promise<CustomerView> {
    const now = this.ports.now();
    const command: ProjectCommand = change.status === 'closed' ? { type: 'CloseProject', projectId, reason: change.reason, now } : { type: 'SetProjectStatus', projectId, status: change.status, reason: change.reason, now };
    const result = await handleCommand(this.ports.events, projectStream(projectId), projectDecider, command, context);
    // The auth pipeline's cache of the standing drops when this process's projector applies it: the
    // project's next request, after this answer, sees the change (read-your-writes).
    await this.ports.waitForProjections(result.position, [projectsProjection.name]);
    const doc = await this.ports.readBack(projectsProjection, projectStream(projectId), projectId, result.position);
    if (!doc) throw notFound(`Customer ${projectId} not found`);
    return (await customerViews(this.ports, [doc]))[0];
  }
}

export const CUSTOMER_HANDLERS = [ListCustomersHandler, GetCustomerHandler, ChangeCustomerStandingHandler];

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
