import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HOURS_PER_MONTH, PRICE_CURRENCY, PRICED_RESOURCE_TYPES, type PricedResourceType } from '../../../../libs/domain/catalog/pricing';
import type { Principal } from '../../../../libs/http/src/auth';
import { SCHEMA_NAME_MARK } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { BODY_PARSE, zodBodyError } from '../../../../libs/http/src/validation';
import { BusController } from '../common/bus-controller';
import { jobResourceCreateBody, type JobResourceRoutes } from '../common/job-resource.routes';
import { EstimateCost, type EstimateRequest } from '../../../../usecases/billing/cost-estimates';
import { dataScopeOf } from '../common/resource-lifecycle';
import { databaseRoutes } from '../databases/databases.routes';
import { instanceCreateBody } from '../instances/instances.controller';
import { clusterRoutes } from '../kubernetes/clusters.routes';
import { serverCreateBody, serverCreateInput } from '../servers/servers.controller';
import { bucketRoutes } from '../storage/buckets.routes';
import { volumeRoutes } from '../storage/volumes.routes';

/**
 * Cost estimates (DECISIONS 22): each item's attributes are the body its create route takes, checked
 * by that create's own schema and lookups (the same 400, 404 PROVIDER_NOT_FOUND and 422 answers), then
 * priced by the domain's `priceOf`, the function the creates record their price with. Nothing is
 * created or recorded.
 */
export const MAX_ESTIMATE_ITEMS = 100;
const TYPE = 'cost-estimates';

const itemSchema = z.object({
  resourceType: z.enum(PRICED_RESOURCE_TYPES),
  attributes: z.record(z.string(), z.unknown()).describe("The body the resource's create route takes (a job-backed resource's `providerId` query parameter goes here too)"),
  quantity: z.number().int().min(1).max(1000).optional().describe('How many such resources (default 1)'),
});
const estimateBody = z.object({ items: z.array(itemSchema).min(1).max(MAX_ESTIMATE_ITEMS).describe(`1 to ${MAX_ESTIMATE_ITEMS} items`) });

const pricedItem = z.object({
  resourceType: z.enum(PRICED_RESOURCE_TYPES),
  hourlyCents: z.number().int(),
  monthlyCents: z.number().int().describe(`${HOURS_PER_MONTH} hours`),
  unitPrice: z.number().describe('Cents per hour for one resource (fractional for storage)'),
  quantity: z.number().int(),
  priceSource: z.enum(['catalog', 'storage-rate']).describe("`catalog`: the plans' catalog prices; `storage-rate`: the platform's storage rate; the margin applied to both"),
});
const estimateAttributes = z.object({ currency: z.literal(PRICE_CURRENCY), hourlyCents: z.number().int(), monthlyCents: z.number().int(), items: z.array(pricedItem) });

const estimateRoute = route({
  method: 'POST',
  path: '/v1/cost-estimates',
  summary: 'Price resources from their create bodies (validated as the creates validate them); nothing is created',
  tag: 'Billing',
  auth: 'project',
  // Pricing changes nothing: whoever may read the project may price (viewers included).
  permission: 'cost-estimates:read',
  type: TYPE,
  body: estimateBody,
  // No id (DECISIONS 22: nothing is recorded), so not a resource object; still a named schema.
  responses: { 200: z.object({ data: z.object({ type: z.literal(TYPE), attributes: estimateAttributes }).meta({ [SCHEMA_NAME_MARK]: 'CostEstimate' }) }) },
});

type Item = z.output<typeof itemSchema>;

const JOB_BACKED: Record<Exclude<PricedResourceType, 'instance' | 'server'>, JobResourceRoutes> = {
  cluster: clusterRoutes as unknown as JobResourceRoutes,
  volume: volumeRoutes as unknown as JobResourceRoutes,
  database: databaseRoutes as unknown as JobResourceRoutes,
  bucket: bucketRoutes as unknown as JobResourceRoutes,
};

const providerField = z.object({ providerId: z.string().min(1).max(64).optional() });

/** The create's own body schema: 400 with pointers into the item's attributes. */
function parsed<S extends z.ZodType>(schema: S, value: unknown, pointer: string): z.output<S> {
  const r = schema.safeParse(value, BODY_PARSE);
  if (!r.success) throw zodBodyError(r.error, pointer);
  return r.data;
}

/** An item's attributes checked by its create route's own body schema, as the input its create's use case takes. */
function requestOf({ resourceType, attributes }: Item, pointer: string): EstimateRequest {
  switch (resourceType) {
    case 'instance': {
      const body = parsed(instanceCreateBody, attributes, pointer);
      return { resourceType, input: { ...body, tags: body.tags ?? [] } };
    }
    case 'server':
      return { resourceType, input: serverCreateInput(parsed(serverCreateBody, attributes, pointer)) };
    default: {
      const routes = JOB_BACKED[resourceType];
      // A job-backed create names its provider in the query; an estimate item in its attributes.
      const { providerId } = parsed(providerField, attributes, pointer);
      const { providerId: _inBody, ...body } = parsed(jobResourceCreateBody(routes), attributes, pointer) as Record<string, unknown>;
      return { resourceType, resource: routes, providerId, body };
    }
  }
}

@Controller()
export class CostEstimatesController extends BusController {
  @ApiRoute(estimateRoute)
  async estimate(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof estimateRoute>['body']) {
    const items = body.items.map((item, i) => {
      // The item's attributes in the body; the use case rebases its refusals there, the edge under the document's.
      const at = `/items/${i}/attributes`;
      return { request: requestOf(item, `${req.parsed?.bodyPointer ?? ''}${at}`), quantity: item.quantity ?? 1, at };
    });
    const attributes = await this.queries.execute(new EstimateCost(dataScopeOf(p), items));
    return { data: { type: TYPE, attributes } };
  }
}

