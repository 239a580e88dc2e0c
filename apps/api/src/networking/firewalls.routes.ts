import { z } from 'zod';
import { firewalls } from '../../../../libs/domain/networking/firewall.resource';
import { firewallRulesSchema } from '../../../../libs/domain/networking/firewall-rules';
import { firewallResource } from '../../../../usecases/networking/firewalls';
import { targetBody } from '../../../../usecases/networking/targets';
import { jobResourceController } from '../common/job-resource.routes';

/** Firewalls (spec 4.8, DECISIONS 14): rules without a region, renamed and replaced by PATCH, assigned to instances and servers; each a job. The lookups are the use case's (usecases/networking). */
export const FirewallsController = jobResourceController({
  ...firewallResource,
  path: '/v1/networking/firewalls',
  tag: 'Networking',
  permission: 'networking',
  summaries: { list: 'List the firewalls of the project', get: 'Get a firewall', create: 'Create a firewall (202, a firewall.create job)', delete: 'Delete a firewall (202, a firewall.delete job)' },
  body: firewalls.schema.omit({ targets: true }),
  update: {
    summary: 'Rename a firewall and/or replace its rules (202, a firewall.update job; both change when it completes)',
    // DECISIONS 14: `name` and/or `rules`, and both are applied.
    body: z
      .object({ name: firewalls.schema.shape.name.optional(), rules: firewallRulesSchema.optional() })
      .refine((b) => b.name !== undefined || b.rules !== undefined, { message: 'Give name, rules or both' })
      .meta({ minProperties: 1 }),
  },
  actions: {
    assign: { ...firewallResource.actions.assign, summary: 'Assign the firewall to an instance or server of the project (202, a firewall.assign job)', body: targetBody },
  },
});
