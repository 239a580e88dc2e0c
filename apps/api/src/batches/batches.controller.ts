import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { commandContext } from '../identity/request-context';
import { dataScopeOf } from '../common/resource-lifecycle';
import { GetBatch, RequestBatch, type BatchView } from '../../../../usecases/batches/batches.handlers';
import { BusController } from '../common/bus-controller';

const resourceIds = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(100)
  .refine((ids) => new Set(ids).size === ids.length, 'resourceIds must be unique');
const actionBody = z.object({ action: z.enum(['start', 'stop', 'reboot', 'delete']), resourceType: z.enum(['instances', 'servers']), resourceIds });
const deleteBody = z.object({ resourceType: z.enum(['instances', 'servers']), resourceIds });

const itemSchema = z.object({ resourceId: z.string(), jobId: z.string().nullable(), status: z.string(), error: z.string().nullable(), code: z.string().nullable() });
const batchAttributes = z.object({
  action: z.string(),
  resourceType: z.string(),
  status: z.enum(['accepted', 'processing', 'completed', 'partially_failed', 'failed']),
  total: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  inProgress: z.number().int(),
  items: z.array(itemSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const batchDocument = z.object({ data: z.object({ id: z.string(), type: z.literal('batches'), attributes: batchAttributes }), jobId: z.string().optional() });

/**
 * Spec 4.17 batches: a batch is an aggregate; a process manager fans it out into one job per
 * resource. `jobId` in the 202 is the batch id: GET /v1/jobs/{id} shows the batch as one job
 * summing up its items, and the status route reports each resource under `items`.
 */
/** A batch request whose answer a crash lost answers the batch it wrote, fanned out. */
const actionRoute = route({
  method: 'POST',
  path: '/v1/batch/batch/action',
  summary: 'Start, stop, reboot or delete many instances or servers: one job per resource',
  tag: 'Batch',
  auth: 'project',
  permission: 'batch:write',
  type: 'batches',
  body: actionBody,
  idempotent: true,
  responses: { 202: batchDocument },
});
const removeRoute = route({
  method: 'POST',
  path: '/v1/batch/batch/delete',
  summary: 'Delete many instances or servers: one job per resource',
  tag: 'Batch',
  auth: 'project',
  permission: 'batch:write',
  type: 'batches',
  body: deleteBody,
  idempotent: true,
  responses: { 202: batchDocument },
});
const statusRoute = route({
  method: 'GET',
  path: '/v1/batch/batch/status',
  summary: 'Per-resource outcome of a batch',
  tag: 'Batch',
  auth: 'project',
  permission: 'batch:read',
  query: z.object({ batchId: z.string().min(1).max(64) }),
  responses: { 200: batchDocument },
});

@Controller()
export class BatchesController extends BusController {
  @ApiRoute(actionRoute)
  async action(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof actionRoute>['body']) {
    const batch = await this.commands.execute(new RequestBatch(dataScopeOf(p), body.action, body.resourceType, body.resourceIds, commandContext(req, p)));
    return { data: view(batch), jobId: batch.doc.id };
  }

  @ApiRoute(removeRoute)
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof removeRoute>['body']) {
    const batch = await this.commands.execute(new RequestBatch(dataScopeOf(p), 'delete', body.resourceType, body.resourceIds, commandContext(req, p)));
    return { data: view(batch), jobId: batch.doc.id };
  }

  @ApiRoute(statusRoute)
  async status(@CurrentPrincipal() p: Principal, @Parsed('query') q: RouteInput<typeof statusRoute>['query']) {
    return { data: view(await this.queries.execute(new GetBatch(dataScopeOf(p), q.batchId))) };
  }
}

function view({ doc, outcome }: BatchView) {
  const { status, total, succeeded, failed, inProgress, items } = outcome;
  return {
    id: doc.id,
    type: 'batches' as const,
    attributes: { action: doc.action, resourceType: doc.resourceType, status, total, succeeded, failed, inProgress, items, createdAt: doc.createdAt, updatedAt: doc.updatedAt },
  };
}
