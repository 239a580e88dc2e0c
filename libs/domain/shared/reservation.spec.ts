import { deciderSpec } from './decider-spec';
import type { DomainEvent } from './domain-error';
import { isReleasable, RESERVATION_TIMEOUT_MS, reservationLedger, type LedgerCommand } from './reservation';

/** A test ledger: holders reserve seat numbers of a room; two holders may not hold one seat. */
type Scope = { room: string };
type Seated = DomainEvent<'test.SeatReserved.v1', Scope & { holderId: string; seat: number; reservedAt: string }>;
type Freed = DomainEvent<'test.SeatReleased.v1', Scope & { holderId: string; seat: number; releasedAt: string }>;
const ledger = reservationLedger<number, Scope, Seated | Freed>({
  snapshot: { name: 'test-seats', version: 1, every: 100 },
  conflicts: (held, wanted) => held === wanted,
  describe: (id, held) => `seat ${held.value} is held by ${id}`,
  reserved: (scope, holderId, r) => ({ type: 'test.SeatReserved.v1', data: { ...scope, holderId, seat: r.value, reservedAt: r.reservedAt } }),
  released: (scope, holderId, held, at) => ({ type: 'test.SeatReleased.v1', data: { ...scope, holderId, seat: held.value, releasedAt: at } }),
  read: (e) => (e.type === 'test.SeatReserved.v1' ? { holderId: e.data.holderId, reservation: { value: e.data.seat, reservedAt: e.data.reservedAt } } : { holderId: e.data.holderId, reservation: null }),
});

const given = deciderSpec(ledger);
const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-01T00:00:10.000Z';
const scope = { room: 'r1' };
const reserve = (holderId: string, seat: number, releasable: string[] = [], now = t1): LedgerCommand<number, Scope> => ({ type: 'Reserve', scope, holderId, value: seat, releasable, now });
const release = (holderId: string): LedgerCommand<number, Scope> => ({ type: 'Release', scope, holderId, now: t1 });
const seated = (holderId: string, seat: number, at = t0): Seated => ({ type: 'test.SeatReserved.v1', data: { ...scope, holderId, seat, reservedAt: at } });
const freed = (holderId: string, seat: number, at = t1): Freed => ({ type: 'test.SeatReleased.v1', data: { ...scope, holderId, seat, releasedAt: at } });

describe('reservation ledger (one mechanism for cross-stream reservations)', () => {
  it('reserves a free value, and a holder’s repeat is a no-op', () => {
    given([]).when(reserve('a', 1)).then([seated('a', 1, t1)]);
    given([seated('b', 2)]).when(reserve('a', 1)).then([seated('a', 1, t1)]);
    given([seated('a', 1)]).when(reserve('a', 1)).thenNothingHappens();
  });

  it('refuses a value a conflicting reservation holds (CONFLICT, worded by the ledger)', () => {
    given([seated('a', 1)]).when(reserve('b', 1)).thenThrows('CONFLICT', /seat 1 is held by a/);
    // A releasable list naming someone else does not free it.
    given([seated('a', 1)]).when(reserve('b', 1, ['c'])).thenThrows('CONFLICT');
  });

  it('releases by the holder: the value is free again, and a holder without one releases nothing', () => {
    given([seated('a', 1)]).when(release('a')).then([freed('a', 1)]);
    given([seated('a', 1), freed('a', 1)]).when(reserve('b', 1)).then([seated('b', 1, t1)]);
    given([seated('a', 1), freed('a', 1)]).when(release('a')).thenNothingHappens();
    given([]).when(release('a')).thenNothingHappens();
  });

  it('releases a stale conflicting reservation the caller proved releasable, with the new one in one decision', () => {
    given([seated('a', 1), seated('c', 2)]).when(reserve('b', 1, ['a'])).then([freed('a', 1), seated('b', 1, t1)]);
    // Only conflicting ones are released: `c` holds another value and stays.
    given([seated('a', 1), seated('c', 2)]).when(reserve('b', 1, ['a', 'c'])).then([freed('a', 1), seated('b', 1, t1)]);
  });
});

describe('reservation release and timeout rule', () => {
  const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
  const r = { reservedAt: t0 };

  it('releases on a holder proven gone at once, never one that holds', () => {
    expect(isReleasable(r, 'gone', t0)).toBe(true);
    expect(isReleasable(r, 'holds', at(10 * RESERVATION_TIMEOUT_MS))).toBe(false);
  });

  it('releases a holder that never appeared only after the bound (30 s by default; a parameter)', () => {
    expect(RESERVATION_TIMEOUT_MS).toBe(30_000);
    expect(isReleasable(r, 'unseen', at(RESERVATION_TIMEOUT_MS - 1))).toBe(false);
    expect(isReleasable(r, 'unseen', at(RESERVATION_TIMEOUT_MS))).toBe(false);
    expect(isReleasable(r, 'unseen', at(RESERVATION_TIMEOUT_MS + 1))).toBe(true);
    expect(isReleasable(r, 'unseen', at(5_001), 5_000)).toBe(true);
    expect(isReleasable(r, 'unseen', at(4_999), 5_000)).toBe(false);
  });
});
