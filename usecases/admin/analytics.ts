import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { InstanceStatus } from '../../libs/domain/compute/instance.events';
import type { ProjectStatus } from '../../libs/domain/identity/project.decider';
import type { JobStatus } from '../../libs/domain/jobs/events';
import { SERVER_STATUSES } from '../../libs/domain/servers/server.events';
import type { Mode } from '../../libs/domain/shared/scope';
import type { Filter, ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { PortsOf } from '../../libs/runtime/src/ports';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { jobsProjection } from '../../projections/jobs/jobs.projection';
import { projectsProjection } from '../../projections/projects/projects.projection';
import { revenueProjection } from '../../projections/revenue/revenue.projection';
import { serversProjection } from '../../projections/servers/servers.projection';
import { InjectPorts } from '../inject-ports';

const PROJECT_STATUSES = ['active', 'suspended', 'closed'] as const satisfies readonly ProjectStatus[];
const INSTANCE_STATUSES = ['creating', 'provisioning', 'active', 'starting', 'stopping', 'stopped', 'error', 'terminating', 'terminated'] as const satisfies readonly InstanceStatus[];
const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const satisfies readonly JobStatus[];

/** A read model's documents counted by status. */
export interface StatusCounts {
  total: number;
  byStatus: Record<string, number>;
}
/** Jobs by status, with failed / (completed + failed); null before any job finished. */
export type JobCounts = StatusCounts & { failureRate: number | null };
/** Instances, servers and jobs of one mode. */
export interface ModeCounts {
  instances: StatusCounts;
  servers: StatusCounts;
  jobs: JobCounts;
}
/** The platform's figures from its read models: live-mode counts at the top, test mode's apart (DECISIONS 21), revenue newest month first. */
export type PlatformAnalytics = { projects: StatusCounts } & ModeCounts & {
  testMode: ModeCounts;
  revenue: Array<{ currency: string; month: string; amountCents: number; payments: number }>;
  generatedAt: string;
};

/**
 * Counts of one read model by status: one counted query per status (each an equality the stores push
 * down, served by an index on the fields filtered). `filter` narrows every count (e.g. a mode).
 */
async function countByStatus<D extends ReadDoc>(ports: PortsOf<'projections'>, projection: DocumentProjection<D>, statuses: readonly string[], filter: Filter = {}): Promise<StatusCounts> {
  const collection = await ports.projections.collection(projection);
  const counts = await Promise.all(statuses.map(async (status) => (await collection.find({ filter: { ...filter, status }, limit: 1 })).total));
  return { total: counts.reduce((a, b) => a + b, 0), byStatus: Object.fromEntries(statuses.map((s, i) => [s, counts[i]!])) };
}

/** Instances, servers and jobs of one mode (their documents' `mode`), with the jobs' failure rate. */
async function modeCounts(ports: PortsOf<'projections'>, mode: Mode): Promise<ModeCounts> {
  const [instances, servers, jobs] = await Promise.all([
    countByStatus(ports, instancesProjection, INSTANCE_STATUSES, { mode }),
    countByStatus(ports, serversProjection, SERVER_STATUSES, { mode }),
    countByStatus(ports, jobsProjection, JOB_STATUSES, { mode }),
  ]);
  const finished = jobs.byStatus.completed! + jobs.byStatus.failed!;
  return { instances, servers, jobs: { ...jobs, failureRate: finished ? jobs.byStatus.failed! / finished : null } };
}

/** Platform analytics (platform admin): projects, instances, servers and jobs by status, revenue by currency and month. */
export class GetPlatformAnalytics extends Query<PlatformAnalytics> {}

@QueryHandler(GetPlatformAnalytics)
export class GetPlatformAnalyticsHandler implements IQueryHandler<GetPlatformAnalytics> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'now' | 'projections'>) {}

  async execute(): Promise<PlatformAnalytics> {
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
