import { firewalls } from '../../libs/domain/networking/firewall.resource';
import { firewallsProjection } from '../../projections/firewalls/firewalls.projection';
import type { JobResourceUseCase } from '../resources/job-resources';
import { createFields } from './create-fields';
import { targetLookups } from './targets';

/** Firewalls (spec 4.8, DECISIONS 14): rules without a region, renamed and replaced by an update, assigned to instances and servers; each a job. */
export const firewallResource = {
  resource: firewalls,
  projection: firewallsProjection,
  type: 'firewalls',
  capability: 'firewalls',
  prepare: createFields(firewalls.schema),
  actions: {
    // The target: an instance or server of the project that still exists (404 on the field); its region goes to the rule.
    assign: targetLookups,
  },
} satisfies JobResourceUseCase<typeof firewalls.schema>;
