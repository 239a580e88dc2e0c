import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { handleCommand } from '../../../../libs/eventstore/src/handle-command';
import { batchDecider } from '../../../../libs/domain/batches/batch.decider';
import { batchStream, type BatchAction } from '../../../../libs/domain/batches/events';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import type { Principal } from '../../../../libs/http/src/auth';
import { notFound } from '../../../../libs/http/src/errors';
import { batchesProjection, type BatchDoc } from '../../../../projections/batches/batches.projection';
import { commandContext } from '../identity/request-context';
import { projectIdOf } from '../common/resource-lifecycle';
import { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';
import { batchOutcome } from './batch-view';

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
@Controller()
export class BatchesController {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  @ApiRoute({
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
  })
  async action(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: z.infer<typeof actionBody>) {
    return this.request(req, p, body.action, body.resourceType, body.resourceIds);
  }

  @ApiRoute({
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
  })
  async remove(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: z.infer<typeof deleteBody>) {
    return this.request(req, p, 'delete', body.resourceType, body.resourceIds);
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/batch/batch/status',
    summary: 'Per-resource outcome of a batch',
    tag: 'Batch',
    auth: 'project',
    query: z.object({ batchId: z.string().min(1).max(64) }),
    responses: { 200: batchDocument },
  })
  async status(@CurrentPrincipal() p: Principal, @Parsed('query') q: { batchId: string }) {
    const doc = await (await this.platform.projections.collection(batchesProjection)).get(q.batchId);
    if (!doc || doc.projectId !== projectIdOf(p)) throw notFound('Batch not found');
    return { data: await this.view(doc) };
  }

  private async request(req: FastifyRequest, p: Principal, action: BatchAction, resourceType: 'instances' | 'servers', ids: string[]) {
    const batchId = uuidv7();
    const result = await handleCommand(
      this.platform.events,
      batchStream(batchId),
      batchDecider,
      { type: 'RequestBatch', batchId, projectId: projectIdOf(p), action, resourceType, resourceIds: ids, now: new Date().toISOString() },
      commandContext(req, p),
    );
    // The fan-out is part of the write: answer once every item is dispatched or rejected.
    await this.platform.consistency.waitForSaga('saga:batch-fanout', result.position!, batchStream(batchId), ['batches']);
    const doc = await this.platform.readBack(batchesProjection, batchStream(batchId), batchId, null);
    return { data: await this.view(doc!), jobId: batchId };
  }

  private async view(doc: BatchDoc) {
    const { status, total, succeeded, failed, inProgress, items } = await batchOutcome(this.platform, doc);
    return {
      id: doc.id,
      type: 'batches' as const,
      attributes: { action: doc.action, resourceType: doc.resourceType, status, total, succeeded, failed, inProgress, items, createdAt: doc.createdAt, updatedAt: doc.updatedAt },
    };
  }
}
