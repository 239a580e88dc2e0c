/**
 * Every keyed route (DECISIONS 5: `idempotent: true`) recovers a lost answer by running the same
 * request again (libs/http/src/pipeline.ts, `rerunnable`): its handler derives its ids from the key
 * (`requestScopedId`) and finds its own events (`handleCommand` of a `recovering` request) instead of
 * writing again, then answers through its live read path. There is no second, hand-written path: no
 * route declares one, and only a 204 route (nothing to answer) is not run again. The crash suites
 * (test/e2e/*recover*, keyed-rerun) prove the answers per route.
 */
import '../routes';
import { routeRegistry } from '../../../../libs/http/src/route';
import { rerunnable, unrunAnswer } from '../../../../libs/http/src/pipeline';

describe('keyed routes recover their answer after a crash (DECISIONS 5)', () => {
  const keyed = routeRegistry().filter((r) => r.idempotent);
  const name = (r: (typeof keyed)[number]) => `${r.method} ${r.routePath}`;
  const write = { scope: 'project:p', key: 'k', requestId: 'req-1', streamId: 'instance-1', position: 7 };

  it('every keyed route but a 204 one re-runs its request, and none rebuilds its answer another way', () => {
    expect(keyed.length).toBeGreaterThan(60);
    expect(keyed.filter((r) => 'recover' in r).map(name)).toEqual([]);
    const notRun = keyed.filter((r) => !rerunnable(r, write));
    expect(notRun.map((r) => [name(r), unrunAnswer(r, write).status])).toEqual([['DELETE /v1/kubernetes/clusters/:id', 204]]);
  });

  it('a write whose request is unknown is not run again: it gets the generic answer naming it', () => {
    const create = keyed.find((r) => name(r) === 'POST /v1/support')!;
    const anonymous = { ...write, requestId: null };
    expect(rerunnable(create, anonymous)).toBe(false);
    expect(JSON.parse(unrunAnswer(create, anonymous).body)).toEqual({ meta: { idempotentRecovery: expect.objectContaining({ stream: 'instance-1', position: 7 }) } });
  });
});
