import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, route } from '../../../../libs/http/src/route';
import { GetPlatformAnalytics } from '../../../../usecases/admin/analytics';
import { BusController } from '../common/bus-controller';

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
    // Typed by the route's schema: the use case's answer must be what the contract describes.
    const attributes: z.output<typeof analyticsAttributes> = await this.queries.execute(new GetPlatformAnalytics());
    return resource('analytics', 'platform', attributes);
  }
}
