import { vlans } from '../../libs/domain/networking/vlan.resource';
import { vlansProjection } from '../../projections/vlans/vlans.projection';
import type { JobResourceUseCase } from '../resources/job-resources';
import { createFields } from './create-fields';
import { resolveTarget, targetLookups, type TargetRef } from './targets';

/** VLANs (spec 4.8, DECISIONS 14): a private range of a region, assigned to and detached from its servers and instances; each a job. */
export const vlanResource = {
  resource: vlans,
  projection: vlansProjection,
  type: 'vlans',
  capability: 'vlans',
  prepare: createFields(vlans.schema),
  actions: {
    // The target: an instance or server of the project that still exists (404 on the field); its region goes to the rule.
    assign: targetLookups,
    detach: {
      // A target the VLAN holds can be detached even if it is gone since; any other must exist (404) and is refused by the rule (409).
      async prepare({ ports, projectId, body, doc }) {
        const ref = body as TargetRef;
        const held = (doc.targets as TargetRef[]).some((t) => t.targetType === ref.targetType && t.targetId === ref.targetId);
        return held ? { targetType: ref.targetType, targetId: ref.targetId } : resolveTarget(ports, projectId, ref);
      },
    },
  },
} satisfies JobResourceUseCase<typeof vlans.schema>;
