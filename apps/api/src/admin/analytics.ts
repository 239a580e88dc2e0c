import { Controller, Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { z } from 'zod';
import type { InstanceStatus } from '../../../../libs/domain/compute/instance.events';
import type { ProjectStatus } from '../../../../libs/domain/identity/project.decider';
import type { JobStatus } from '../../../../libs/domain/jobs/events';
import { SERVER_STATUSES } from '../../../../libs/domain/servers/server.events';
import type { Mode } from '../../../../libs/domain/shared/scope';
import { resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, route } from '../../../../libs/http/src/route';
import type { Filter, ReadDoc } from '../../../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { instancesProjection } from '../../../../projections/instances/instances.projection';
import { jobsProjection } from '../../../../projections/jobs/jobs.projection';
import { projectsProjection } from '../../../../projections/projects/projects.projection';
import { serversProjection } from '../../../../projections/servers/servers.projection';
import { revenueProjection } from '../../../../projections/revenue/revenue.projection';
import { BusController } from '../common/bus-controller';
import { PORTS } from '../tokens';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

const PROJECT_STATUSES = ['active', 'suspended', 'closed'] as const satisfies readonly ProjectStatus[];
const INSTANCE_STATUSES = ['creating', 'provisioning', 'active', 'starting', 'stopping', 'stopped', 'error', 'terminating', 'terminated'] as const satisfies readonly InstanceStatus[];
const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const satisfies readonly JobStatus[];

const byStatus = z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) });
const failureRate = z.number().nullable().describe('failed / (completed + failed); null before any job finished');
const analyticsAttributes = z.object({
  projects: byStatus,
  instances: byStatus.describe('Live mode only: test-mode instances are simulations (see testMode)'),
  servers: byStatus.describe('Live mode only (see testMode)'),
  jobs: byStatus.extend({ failureRate }).describe('Live mode only (see testMode)'),
  testMode: z
    .object({ instances: byStatus, servers: byStatus, jobs: byStatus.extend({ failureRate }) })
    .describe("What projects' test keys made (DECISIONS 21): simulated, never billed, counted apart from the live figures"),
  revenue: z.array(z.object({ currency: z.string(), month: z.string().describe('YYYY-MM (UTC)'), amountCents: z.number().int(), payments: z.number().int() })).describe('Money received through payment providers (settled payments, completed checkouts) by currency and month, newest month first'),
  generatedAt: z.string(),
});
type Analytics = z.infer<typeof analyticsAttributes>;

type Counts = z.infer<typeof byStatus>;

/**
 * Counts of one read model by status: one counted query per status (each an equality the stores push
 * down, served by an index on the fields filtered). `filter` narrows every count (e.g. a mode).
 */
async function countByStatus<D extends ReadDoc>(ports: PortsOf<'projections'>, projection: DocumentProjection<D>, statuses: readonly string[], filter: Filter = {}): Promise<Counts> {
  const collection = await ports.projections.collection(projection);
  const counts = await Promise.all(statuses.map(async (status) => (await collection.find({ filter: { ...filter, status }, limit: 1 })).total));
  return { total: counts.reduce((a, b) => a + b, 0), byStatus: Object.fromEntries(statuses.map((s, i) => [s, counts[i]!])) };
}

/** Instances, servers and jobs of one mode (their documents' `mode`), with the jobs' failure rate. */
async function modeCounts(ports: PortsOf<'projections'>, mode: Mode) {
  const [instances, servers, jobs] = await Promise.all([
    countByStatus(ports, instancesProjection, INSTANCE_STATUSES, { mode }),
    countByStatus(ports, serversProjection, SERVER_STATUSES, { mode }),
    countByStatus(ports, jobsProjection, JOB_STATUSES, { mode }),
  ]);
  const finished = jobs.byStatus.completed! + jobs.byStatus.failed!;
  return { instances, servers, jobs: { ...jobs, failureRate: finished ? jobs.byStatus.failed! / finished : null } };
}

export class GetPlatformAnalytics extends Query<Analytics> {}

@QueryHandler(GetPlatformAnalytics)
export class GetPlatformAnalyticsHandler implements IQueryHandler<GetPlatformAnalytics> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'now' | 'projections'>) {}

  async execute(): Promise<Analytics> {
    const [projects, live, testMode, revenue] = await Promise.all([
      countByStatus(this.ports, projectsProjection, PROJECT_STATUSES),
      modeCounts(this.ports, 'live'),
      modeCounts(this.ports, 'test'),
      this.ports.projections.collection(revenueProjection).then((c) => c.find({ sort: [{ field: 'month', direction: -1 }], limit: 1200, withTotal: false })),
    ]);
    return { projects, ...live, testMode, revenue: revenue.items.map(({ currency, month, amountCents, payments }) => ({ currency, month, amountCents, payments })), generatedAt: this.ports.now() };
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
