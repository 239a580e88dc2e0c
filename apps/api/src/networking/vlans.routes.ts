import { vlans } from '../../../../libs/domain/networking/vlan.resource';
import { vlansProjection } from '../../../../projections/vlans/vlans.projection';
import { jobResourceController } from '../common/job-resource.routes';
import { createFields } from './create-fields';
import { resolveTarget, targetBody, type TargetRef } from '../common/targets';

/** VLANs (spec 4.8, DECISIONS 14): a private range of a region, assigned to and detached from its servers and instances; each a job. */
export const VlansController = jobResourceController({
  resource: vlans,
  projection: vlansProjection,
  type: 'vlans',
  path: '/v1/networking/vlans',
  tag: 'Networking',
  permission: 'networking',
  capability: 'vlans',
  summaries: { list: 'List the VLANs of the project', get: 'Get a VLAN', create: 'Create a VLAN (202, a vlan.create job)', delete: 'Delete a VLAN with nothing assigned (202, a vlan.delete job)' },
  body: vlans.schema.omit({ targets: true }),
  prepare: createFields(vlans.schema),
  actions: {
    assign: {
      summary: 'Assign the VLAN to an instance or server of the project in its region (202, a vlan.assign job)',
      body: targetBody,
      prepare: ({ ports, projectId, body, pointerPrefix }) => resolveTarget(ports, projectId, body as TargetRef, pointerPrefix),
    },
    detach: {
      summary: 'Detach the VLAN from one of its targets (202, a vlan.detach job)',
      body: targetBody,
      // A target the VLAN holds can be detached even if it is gone since; any other must exist (404) and is refused by the rule (409).
      async prepare({ ports, projectId, body, pointerPrefix, doc }) {
        const ref = body as TargetRef;
        const held = (doc.targets as TargetRef[]).some((t) => t.targetType === ref.targetType && t.targetId === ref.targetId);
        return held ? { targetType: ref.targetType, targetId: ref.targetId } : resolveTarget(ports, projectId, ref, pointerPrefix);
      },
    },
  },
});
