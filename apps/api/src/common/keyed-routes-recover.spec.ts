/**
 * Every keyed route (DECISIONS 5: `idempotent: true`) declares `recover`, so a retry after a crash
 * between the write's commit and its answer gets the route's real answer rebuilt from the write, not
 * the generic 200 naming a stream. A route that cannot yet is listed below with the reason; a new keyed
 * route without `recover` fails here until it declares one (or is added to the list, with its reason).
 */
import '../routes';
import { routeRegistry } from '../../../../libs/http/src/route';

/** Keyed routes allowed to answer the generic 200 after a crash, each with its reason. */
const WITHOUT_RECOVER: Record<string, string> = {
  // None today. An entry is `'<METHOD> <route path>': '<why it cannot recover yet>'`.
};

describe('keyed routes recover their answer after a crash (DECISIONS 5)', () => {
  const keyed = routeRegistry().filter((r) => r.idempotent);
  const name = (r: (typeof keyed)[number]) => `${r.method} ${r.routePath}`;

  it('every keyed route declares `recover`, but for the listed ones', () => {
    expect(keyed.length).toBeGreaterThan(60);
    expect(keyed.filter((r) => !r.recover).map(name).filter((n) => !(n in WITHOUT_RECOVER)).sort()).toEqual([]);
  });

  it('lists only keyed routes that still lack it (a route that gained `recover` leaves the list)', () => {
    const lacking = new Set(keyed.filter((r) => !r.recover).map(name));
    expect(Object.keys(WITHOUT_RECOVER).filter((n) => !lacking.has(n)).sort()).toEqual([]);
  });
});
