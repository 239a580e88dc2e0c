import { z } from 'zod';
import { bodyErrors } from '../../http/src/validation';
import { MAX_NODE_POOLS, nodePoolsSchema } from './node-pools';

const body = z.object({ name: z.string(), nodePools: nodePoolsSchema });

function errors(nodePools: unknown): { detail: string; pointer: string }[] {
  const r = body.safeParse({ name: 'prod', nodePools });
  return r.success ? [] : bodyErrors(r.error, '').map((e) => ({ detail: e.detail, pointer: e.source?.pointer ?? '' }));
}

const pool = { name: 'workers', plan: 'pc-t3-medium', count: 3 };

describe('node pools', () => {
  it.each([
    [[pool]],
    [[{ plan: 'pc-t3-medium', count: 1 }]],
    [[{ plan: 'pc-t3-medium', count: 100 }, { name: 'gpu', plan: '0192f3c4-2222-7ccc-8ddd-000000000002', count: 2 }]],
    [[{ plan: 'a', count: 1 }, { plan: 'b', count: 1 }]], // unnamed pools never clash
    [Array.from({ length: MAX_NODE_POOLS }, (_, i) => ({ ...pool, name: `p${i}` }))],
  ])('accepts %j', (pools) => {
    expect(errors(pools)).toEqual([]);
    expect(nodePoolsSchema.parse(pools)).toEqual(pools);
  });

  it.each([
    [[], 'nodePools must have 1 to 10 entries', '/nodePools'],
    [Array.from({ length: MAX_NODE_POOLS + 1 }, () => ({ plan: 'p', count: 1 })), 'nodePools must have 1 to 10 entries', '/nodePools'],
    [undefined, 'nodePools is required', '/nodePools'],
    [pool, 'nodePools must be an array of node pools', '/nodePools'],
    [['workers'], 'a node pool is an object {name?, plan, count}', '/nodePools/0'],
    [[{ ...pool, count: 0 }], 'count must be an integer from 1 to 100', '/nodePools/0/count'],
    [[pool, { ...pool, name: 'b', count: 101 }], 'count must be an integer from 1 to 100', '/nodePools/1/count'],
    [[{ ...pool, count: 2.5 }], 'count must be an integer from 1 to 100', '/nodePools/0/count'],
    [[{ ...pool, count: '3' }], 'count must be an integer from 1 to 100', '/nodePools/0/count'],
    [[{ name: 'w', plan: 'p' }], 'count is required', '/nodePools/0/count'],
    [[{ name: 'w', count: 1 }], 'plan is required', '/nodePools/0/plan'],
    [[{ ...pool, plan: '' }], 'plan is required', '/nodePools/0/plan'],
    [[{ ...pool, plan: 7 }], 'plan must be a plan slug or id', '/nodePools/0/plan'],
    [[{ ...pool, name: '' }], 'name must be 1 to 63 characters long', '/nodePools/0/name'],
    [[{ ...pool, name: 'n'.repeat(64) }], 'name must be 1 to 63 characters long', '/nodePools/0/name'],
    [[pool, { ...pool, plan: 'other' }], 'node pool name workers is used twice', '/nodePools/1/name'],
  ])('refuses %j: %s at %s', (pools, detail, pointer) => {
    expect(errors(pools)).toEqual([{ detail, pointer }]);
  });
});
