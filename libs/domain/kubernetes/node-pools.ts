import { z } from 'zod';

/**
 * A cluster's node pools (spec 4.10, DECISIONS 14). `plan` is a slug or id of `/v1/plans`; whether
 * the provider offers it in the cluster's region (422 INVALID_PLAN) is the decider's check, with
 * the catalog passed in.
 */
export const MIN_NODE_POOLS = 1;
export const MAX_NODE_POOLS = 10;
export const MIN_POOL_NODES = 1;
export const MAX_POOL_NODES = 100;

const required = (field: string, otherwise: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${field} is required` : otherwise);
const COUNT = `count must be an integer from ${MIN_POOL_NODES} to ${MAX_POOL_NODES}`;

export const nodePoolSchema = z.object(
  {
    name: z
      .string({ error: 'name must be a string' })
      .min(1, { error: 'name must be 1 to 63 characters long' })
      .max(63, { error: 'name must be 1 to 63 characters long' })
      .optional(),
    plan: z
      .string({ error: required('plan', 'plan must be a plan slug or id') })
      .min(1, { error: 'plan is required' })
      .max(128, { error: 'plan must be a plan slug or id' })
      .describe('Slug or id of a plan of GET /v1/plans offered by the provider in the region'),
    count: z
      .number({ error: required('count', COUNT) })
      .int({ error: COUNT })
      .min(MIN_POOL_NODES, { error: COUNT })
      .max(MAX_POOL_NODES, { error: COUNT })
      .describe(`Nodes in the pool, ${MIN_POOL_NODES}-${MAX_POOL_NODES}`),
  },
  { error: 'a node pool is an object {name?, plan, count}' },
);
export type NodePool = z.output<typeof nodePoolSchema>;

export const nodePoolsSchema = z
  .array(nodePoolSchema, { error: required('nodePools', 'nodePools must be an array of node pools') })
  .min(MIN_NODE_POOLS, { error: `nodePools must have ${MIN_NODE_POOLS} to ${MAX_NODE_POOLS} entries` })
  .max(MAX_NODE_POOLS, { error: `nodePools must have ${MIN_NODE_POOLS} to ${MAX_NODE_POOLS} entries` })
  .superRefine((pools, ctx) => {
    const seen = new Set<string>();
    pools.forEach((pool, i) => {
      if (pool.name === undefined) return;
      if (seen.has(pool.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `node pool name ${pool.name} is used twice` });
      seen.add(pool.name);
    });
  })
  .describe(`${MIN_NODE_POOLS}-${MAX_NODE_POOLS} pools of {name?, plan, count}; names unique`);
