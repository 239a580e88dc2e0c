import { Controller, Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { z } from 'zod';
import type { InstanceStatus } from '../../../../libs/domain/compute/instance.events';
import type { ProjectStatus } from '../../../../libs/domain/identity/project.decider';
import type { JobStatus } from '../../../../libs/domain/jobs/events';
import { SERVER_STATUSES } from '../../../../libs/domain/servers/server.events';
import { resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, route } from '../../../../libs/http/src/route';
import type { Filter, ReadDoc } from '../../../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { instancesProjection } from '../../../../projections/instances/instances.projection';
import { jobsProjection } from '../../../../projections/jobs/jobs.projection';
import { projectsProjection } from '../../../../projections/projects/projects.projection';
import { serversProjection } from '../../../../projections/servers/servers.projection';
import { revenueProjection } from '../../../../projections/revenue/revenue.projection';
import { BusController } from '../common/bus-controller';
import { PLATFORM } from '../tokens';

const PROJECT_STATUSES = ['active', 'suspended', 'closed'] as const satisfies readonly ProjectStatus[];
const INSTANCE_STATUSES = ['creating', 'provisioning', 'active', 'starting', 'stopping', 'stopped', 'error', 'terminating', 'terminated'] as const satisfies readonly InstanceStatus[];
const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const satisfies readonly JobStatus[];

const byStatus = z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) });
const analyticsAttributes = z.object({
  projects: byStatus,
  instances: byStatus,
  servers: byStatus,
  jobs: byStatus.extend({ failureRate: z.number().nullable().describe('failed / (completed + failed); null before any job finished') }),
  revenue: z.array(z.object({ currency: z.string(), month: z.string().describe('YYYY-MM (UTC)'), amountCents: z.number().int(), payments: z.number().int() })).describe('Money received through payment providers (settled payments, completed checkouts) by currency and month, newest month first'),
  generatedAt: z.string(),
});
type Analytics = z.infer<typeof analyticsAttributes>;

/** Counts of one read model by status: one counted query per status (each an equality the stores push down). */
async function countByStatus<D extends ReadDoc>(platform: Platform, projection: DocumentProjection<D>, statuses: readonly string[]): Promise<z.infer<typeof byStatus>> {
  const collection = await platform.projections.collection(projection);
  const count = async (filter: Filter) => (await collection.find({ filter, limit: 1 })).total;
  const counts = await Promise.all(statuses.map((status) => count({ status })));
  return { total: await count({}), byStatus: Object.fromEntries(statuses.map((s, i) => [s, counts[i]])) };
}

export class GetPlatformAnalytics extends Query<Analytics> {}

@QueryHandler(GetPlatformAnalytics)
export class GetPlatformAnalyticsHandler implements IQueryHandler<GetPlatformAnalytics> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute(): Promise<Analytics> {
    const [projects, instances, servers, jobs, revenue] = await Promise.all([
      countByStatus(this.platform, projectsProjection, PROJECT_STATUSES),
      countByStatus(this.platform, instancesProjection, INSTANCE_STATUSES),
      countByStatus(this.platform, serversProjection, SERVER_STATUSES),
      countByStatus(this.platform, jobsProjection, JOB_STATUSES),
      this.platform.projections.collection(revenueProjection).then((c) => c.find({ sort: [{ field: 'month', direction: -1 }], limit: 1200, withTotal: false })),
    ]);
    const finished = jobs.byStatus.completed + jobs.byStatus.failed;
    return { projects, instances, servers, jobs: { ...jobs, failureRate: finished ? jobs.byStatus.failed / finished : null }, revenue: revenue.items.map(({ currency, month, amountCents, payments }) => ({ currency, month, amountCents, payments })), generatedAt: this.platform.now() };
  }
}

export const ANALYTICS_HANDLERS = [GetPlatformAnalyticsHandler];

const analyticsRoute = route({
  tag: 'Admin',
  auth: 'admin',
  method: 'GET',
  path: '/v1/admin/analytics',
  summary: 'Platform analytics from the read models: projects, instances, servers and jobs by status, job failure rate, revenue by currency and month (platform admin)',
  responses: { 200: resourceSchema('analytics', analyticsAttributes) },
});

@Controller()
export class AdminAnalyticsController extends BusController {
  @ApiRoute(analyticsRoute)
  async analytics() {
    return resource('analytics', 'platform', await this.queries.execute(new GetPlatformAnalytics()));
  }
}
