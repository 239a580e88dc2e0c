import { INSTANCE } from '../../../../libs/domain/compute/instance.fields';
import type { InstanceDoc } from '../../../../projections/instances/instances.projection';

/** Spec 2.2 attributes of an instance (plus a few the create body takes). */
export const instanceAttributes = INSTANCE.attributes;

export const INSTANCE_SORT_FIELDS = ['name', 'status', 'createdAt', 'region'];

/** A create's answer shows the plan and OS expanded (`{name, slug}`), every other answer by slug. */
export function instanceResource(doc: InstanceDoc, opts: { expandPlan?: boolean } = {}) {
  const attributes = INSTANCE.attributesOf(doc);
  return { id: doc.id, type: 'instances', attributes: opts.expandPlan ? { ...attributes, plan: doc.plan, operating_system: doc.operatingSystem } : attributes };
}
