import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import { sameRegion, type JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { privateCidrSchema } from './cidr';
import { networkTargetSchema, notYetHeld, sameTarget, targetOf, withTarget } from './targets';

export type VlanStatus = 'creating' | 'active' | 'attaching' | 'detaching' | 'deleting' | 'deleted' | 'error';
export type VlanOperation = 'create' | 'assign' | 'detach' | 'delete';

export const vlanStream = (id: string) => `vlan-${id}`;

/** VLANs (spec 4.8; DECISIONS 14): a private layer-2 segment of one region, assigned to any number of its servers and instances. */
export const vlanSchema = z.object({
  name: z.string().min(1).max(64),
  region: z.string().min(1).max(64),
  cidr: privateCidrSchema,
  /** Who it is assigned to (completed assigns add, completed detaches remove). */
  targets: z.array(networkTargetSchema).default([]),
  tags: tagsSchema.default([]),
});

const inRegion = sameRegion('VLAN');
const unassigned = notYetHeld('VLAN');

export const vlans: JobResource<typeof vlanSchema, VlanOperation, VlanStatus> = {
  context: 'networking',
  name: 'Vlan',
  label: 'VLAN',
  kind: 'vlan',
  stream: vlanStream,
  schema: vlanSchema,
  provided: z.object({ vid: z.number().int().nullable().describe('The 802.1Q VLAN id the provider assigned') }),
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    // DECISIONS 14 names no `assigning`: an assign is an attach.
    assign: { from: ['active'], transient: 'attaching', final: 'active' },
    detach: { from: ['active'], transient: 'detaching', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: {
    assign: (fields, args) => unassigned(fields, args) ?? inRegion(fields, args),
    detach: (fields, args) => {
      const t = targetOf(args);
      return fields.targets.some((x) => sameTarget(x, t)) ? null : new DomainError('INVALID_STATE', `${t.targetType} ${t.targetId} is not assigned to this VLAN`);
    },
    // Detach exists, so a VLAN still carrying traffic is not deleted from under its servers.
    delete: (fields) => (fields.targets.length > 0 ? new DomainError('INVALID_STATE', `The VLAN is assigned to ${fields.targets.length} target(s): detach them first`) : null),
  },
  complete: {
    assign: withTarget,
    detach: (fields, args) => ({ ...fields, targets: fields.targets.filter((x) => !sameTarget(x, targetOf(args))) }),
  },
};
