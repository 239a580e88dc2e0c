import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { PRICE_CURRENCY, priceOf, type Priceable, type PricedResourceType, type ResourcePrice } from '../../libs/domain/catalog/pricing';
import { serverSpec } from '../../libs/domain/servers/server.decider';
import { rebased } from '../../libs/application/src/errors';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { instanceLookups, type CreateInstanceInput } from '../compute/instances.handlers';
import { InjectPorts } from '../inject-ports';
import { jobResourceCreateLookups, type JobResourceUseCase, type ResourceLookupPorts } from '../resources/job-resources';
import { serverLookups, type CreateServerInput } from '../servers/servers.handlers';

/**
 * What an estimate item asks to price: the input its create's use case takes (already checked
 * against that create's own body by the caller), so the same lookups answer the same 404s and 422s.
 */
export type EstimateRequest =
  | { resourceType: 'instance'; input: CreateInstanceInput }
  | { resourceType: 'server'; input: CreateServerInput }
  | { resourceType: Exclude<PricedResourceType, 'instance' | 'server'>; resource: JobResourceUseCase; providerId?: string; body: Record<string, unknown> };

export interface EstimateItem {
  request: EstimateRequest;
  quantity: number;
  /**
   * Where the item's input sits in the caller's input (`/items/0/attributes`): the lookups' refusals
   * name fields of the item's input, and are rebased there, once, as they leave.
   */
  at: string;
}

export interface PricedItem {
  resourceType: PricedResourceType;
  hourlyCents: number;
  monthlyCents: number;
  unitPrice: number;
  quantity: number;
  priceSource: ResourcePrice['priceSource'];
}
export interface CostEstimate { currency: typeof PRICE_CURRENCY; hourlyCents: number; monthlyCents: number; items: PricedItem[] }

/**
 * Cost estimates (DECISIONS 22): each item looked up by its create's own code, then priced by the
 * domain's `priceOf`, the function the creates record their price with. Nothing is created or recorded.
 */
export class EstimateCost extends Query<CostEstimate> {
  constructor(
    readonly projectId: string,
    readonly items: EstimateItem[],
  ) {
    super();
  }
}

@QueryHandler(EstimateCost)
export class EstimateCostHandler implements IQueryHandler<EstimateCost> {
  constructor(@InjectPorts() private readonly ports: ResourceLookupPorts & PortsOf<'events' | 'projections'>) {}

  async execute({ projectId, items }: EstimateCost): Promise<CostEstimate> {
    const priced: PricedItem[] = [];
    for (const item of items) {
      const priceable = await this.priceable(projectId, item.request).catch((e: unknown) => {
        throw rebased(e, item.at);
      });
      const { priceSource, unitPrice, quantity, hourlyCents, monthlyCents }: ResourcePrice = priceOf(priceable, item.quantity);
      priced.push({ resourceType: item.request.resourceType, hourlyCents, monthlyCents, unitPrice, quantity, priceSource });
    }
    return {
      currency: PRICE_CURRENCY,
      hourlyCents: priced.reduce((sum, x) => sum + x.hourlyCents, 0),
      monthlyCents: priced.reduce((sum, x) => sum + x.monthlyCents, 0),
      items: priced,
    };
  }

  /** The item looked up by its create's own code, in the form `priceOf` prices. */
  private async priceable(projectId: string, request: EstimateRequest): Promise<Priceable> {
    switch (request.resourceType) {
      case 'instance': {
        const { catalog } = await instanceLookups(this.ports, projectId, request.input);
        return { resourceType: 'instance', plan: catalog.plan };
      }
      case 'server': {
        const { request: server, plan, provider, region, os } = await serverLookups(this.ports, projectId, request.input);
        // The decider's catalog rules (a plan of another role, provider or site: 422 INVALID_PLAN).
        serverSpec({ type: 'RequestServer', serverId: '', jobId: '', projectId, request: server, catalog: { plan, provider: provider ? { id: provider.id, kind: provider.name } : null, region, os }, now: '' });
        return { resourceType: 'server', plan };
      }
      default: {
        const { price } = await jobResourceCreateLookups(this.ports, request.resource, projectId, request.providerId, request.body);
        return price!;
      }
    }
  }
}

export const COST_ESTIMATE_HANDLERS = [EstimateCostHandler];
