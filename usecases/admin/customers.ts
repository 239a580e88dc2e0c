import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { projectStream } from '../../libs/domain/identity/events';
import { projectDecider, type ProjectCommand } from '../../libs/domain/identity/project.decider';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { notFound } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { projectsProjection } from '../../projections/projects/projects.projection';
import { membersProjection, projectOwnerQuery } from '../../projections/members/members.projection';
import { billingWalletsProjection } from '../../projections/billing-wallets/billing-wallets.projection';
import type { ProjectDoc } from '../../projections/projects/projects.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

export const STATUSES = ['active', 'suspended', 'closed'] as const;
export const KYC_STATUSES = ['none', 'pending', 'approved', 'rejected'] as const;

/** A customer is a project as the platform admin sees it (DECISIONS 18), with its owner and wallets. */
export interface CustomerView {
  doc: ProjectDoc;
  ownerEmail: string | null;
  balances: { currency: string; amountCents: number }[];
}

/** The owner's email (members model) and the balances (billing wallets model) of each project. */
export async function customerViews(ports: PortsOf<'projections'>, docs: ProjectDoc[]): Promise<CustomerView[]> {
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
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ list }: ListCustomers) {
    const filter: Record<string, string> = {};
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.kycStatus) filter.kycStatus = list.filters.kycStatus;
    const { items, total } = await (await this.ports.projections.collection(projectsProjection)).find({ filter, ...pageOf(list) });
    return { items: await customerViews(this.ports, items), total };
  }
}

@QueryHandler(GetCustomer)
export class GetCustomerHandler implements IQueryHandler<GetCustomer> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId }: GetCustomer) {
    const doc = await (await this.ports.projections.collection(projectsProjection)).get(projectId);
    if (!doc) throw notFound(`Customer ${projectId} not found`);
    return (await customerViews(this.ports, [doc]))[0];
  }
}

@CommandHandler(ChangeCustomerStanding)
export class ChangeCustomerStandingHandler implements ICommandHandler<ChangeCustomerStanding> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

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
