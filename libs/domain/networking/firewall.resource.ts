import { z } from 'zod';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { firewallRulesSchema, type FirewallRule } from './firewall-rules';
import { networkTargetSchema, notYetHeld, withTarget } from './targets';

export type FirewallStatus = 'creating' | 'active' | 'updating' | 'attaching' | 'deleting' | 'deleted' | 'error';
export type FirewallOperation = 'create' | 'update' | 'assign' | 'delete';

export const firewallStream = (id: string) => `firewall-${id}`;

/** Firewalls (spec 4.8; DECISIONS 14): a rule list with no region, assigned to any of the project's instances and servers. */
export const firewallSchema = z.object({
  name: z.string().min(1).max(64),
  rules: firewallRulesSchema,
  targets: z.array(networkTargetSchema).default([]),
  tags: tagsSchema.default([]),
});

export const firewalls: JobResource<typeof firewallSchema, FirewallOperation, FirewallStatus> = {
  context: 'networking',
  name: 'Firewall',
  label: 'Firewall',
  kind: 'firewall',
  stream: firewallStream,
  schema: firewallSchema,
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    update: { from: ['active'], transient: 'updating', final: 'active' },
    assign: { from: ['active'], transient: 'attaching', final: 'active' },
    // No unassign in the spec: a delete lifts it from its targets.
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: { assign: notYetHeld('firewall') },
  complete: {
    // The rules in force are the provider's: they change when the update job is done, not at the request.
    // A PATCH gives `name` and/or `rules` (DECISIONS 14); what it leaves out stays (older requests carry rules only).
    update: (fields, args) => ({
      ...fields,
      ...(typeof args.name === 'string' ? { name: args.name } : {}),
      ...(Array.isArray(args.rules) ? { rules: args.rules as FirewallRule[] } : {}),
    }),
    assign: withTarget,
  },
};
