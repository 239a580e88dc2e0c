import { vlans } from '../../../../libs/domain/networking/vlan.resource';
import { vlanResource } from '../../../../usecases/networking/vlans';
import { targetBody } from '../../../../usecases/networking/targets';
import { jobResourceController } from '../common/job-resource.routes';

/** VLANs (spec 4.8, DECISIONS 14): a private range of a region, assigned to and detached from its servers and instances; each a job. The lookups are the use case's (usecases/networking). */
export const VlansController = jobResourceController({
  ...vlanResource,
  path: '/v1/networking/vlans',
  tag: 'Networking',
  permission: 'networking',
  summaries: { list: 'List the VLANs of the project', get: 'Get a VLAN', create: 'Create a VLAN (202, a vlan.create job)', delete: 'Delete a VLAN with nothing assigned (202, a vlan.delete job)' },
  body: vlans.schema.omit({ targets: true }),
  actions: {
    assign: { ...vlanResource.actions.assign, summary: 'Assign the VLAN to an instance or server of the project in its region (202, a vlan.assign job)', body: targetBody },
    detach: { ...vlanResource.actions.detach, summary: 'Detach the VLAN from one of its targets (202, a vlan.detach job)', body: targetBody },
  },
});
