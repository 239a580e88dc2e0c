import { deciderSpec } from '../shared/decider-spec';
import { budgetDecider, type BudgetEvent } from './budget.decider';
import { keyDecider, type KeyEvent, type MintKey } from './key.decider';
import { costMicros, worstCaseMicros } from './pricing';

const now = '2026-11-27T00:00:00.000Z';
const mint: MintKey = { type: 'MintKey', keyId: 'k1', projectId: 'p1', name: 'ci', prefix: 'gwk_0123abcd', keyHash: 'hmac', mode: 'live', limits: { rpm: 60, monthlySpendCapMicros: 1_000_000 }, now };
const minted: KeyEvent = { type: 'gateway.KeyMinted.v1', data: { keyId: 'k1', projectId: 'p1', name: 'ci', prefix: 'gwk_0123abcd', keyHash: 'hmac', mode: 'live', limits: { rpm: 60, monthlySpendCapMicros: 1_000_000 }, createdAt: now } };
const revoked: KeyEvent = { type: 'gateway.KeyRevoked.v1', data: { keyId: 'k1', projectId: 'p1', revokedAt: now } };

describe('gateway key decider', () => {
  const given = deciderSpec(keyDecider);
  it('mints a key with its hash and limits, never the key', () => given([]).when(mint).then([minted]));
  it('refuses a second mint of one id and nonsense limits', () => {
    given([minted]).when(mint).thenThrows('CONFLICT');
    given([]).when({ ...mint, limits: { rpm: 0, monthlySpendCapMicros: null } }).thenThrows('BAD_REQUEST');
    given([]).when({ ...mint, limits: { rpm: null, monthlySpendCapMicros: -1 } }).thenThrows('BAD_REQUEST');
  });
  it('revokes once; another organization, a revoked or unknown key is not found', () => {
    given([minted]).when({ type: 'RevokeKey', keyId: 'k1', projectId: 'p1', now }).then([revoked]);
    given([minted]).when({ type: 'RevokeKey', keyId: 'k1', projectId: 'p2', now }).thenThrows('NOT_FOUND');
    given([minted, revoked]).when({ type: 'RevokeKey', keyId: 'k1', projectId: 'p1', now }).thenThrows('NOT_FOUND');
    given([]).when({ type: 'RevokeKey', keyId: 'k1', projectId: 'p1', now }).thenThrows('NOT_FOUND');
  });
  it('changes the limits of an active key of the organization', () => {
    const limits = { rpm: null, monthlySpendCapMicros: 5 };
    given([minted]).when({ type: 'ChangeKeyLimits', keyId: 'k1', projectId: 'p1', limits, now }).then([{ type: 'gateway.KeyLimitsChanged.v1', data: { keyId: 'k1', projectId: 'p1', limits, changedAt: now } }]);
    given([minted, revoked]).when({ type: 'ChangeKeyLimits', keyId: 'k1', projectId: 'p1', limits, now }).thenThrows('NOT_FOUND');
  });
});

describe('gateway budget decider', () => {
  const given = deciderSpec(budgetDecider);
  const base = { keyId: 'k1', projectId: 'p1', month: '2026-11' };
  const reserved = (id: string, amountMicros: number): BudgetEvent => ({ type: 'gateway.SpendReserved.v1', data: { ...base, reservationId: id, amountMicros, capMicros: 100, reservedAt: now } });
  const settled = (id: string, reservedMicros: number, actualMicros: number): BudgetEvent => ({ type: 'gateway.SpendSettled.v1', data: { ...base, reservationId: id, reservedMicros, actualMicros, settledAt: now } });
  const reserve = (id: string, amountMicros: number, capMicros: number | null = 100) => ({ type: 'ReserveSpend' as const, ...base, reservationId: id, amountMicros, capMicros, now });

  it('admits a reservation while spent + held + the worst case stays within the cap', () => {
    given([]).when(reserve('r1', 100)).then([reserved('r1', 100)]);
    given([reserved('r1', 60)]).when(reserve('r2', 41)).thenThrows('INSUFFICIENT_FUNDS');
    given([reserved('r1', 60), settled('r1', 60, 10)]).when(reserve('r2', 90)).then([{ ...reserved('r2', 90) }]);
    given([reserved('r1', 60), settled('r1', 60, 10)]).when(reserve('r2', 91)).thenThrows('INSUFFICIENT_FUNDS');
  });
  it('without a cap admits anything; a reservation id is reserved once', () => {
    given([reserved('r1', 60)]).when(reserve('r2', 1e9, null)).then([{ type: 'gateway.SpendReserved.v1', data: { ...base, reservationId: 'r2', amountMicros: 1e9, capMicros: null, reservedAt: now } }]);
    given([reserved('r1', 60)]).when(reserve('r1', 60)).then([]);
  });
  it('settles once, never above the reservation', () => {
    const settle = (actualMicros: number) => ({ type: 'SettleSpend' as const, ...base, reservationId: 'r1', actualMicros, now });
    given([reserved('r1', 60)]).when(settle(12.2)).then([settled('r1', 60, 13)]);
    given([reserved('r1', 60)]).when(settle(500)).then([settled('r1', 60, 60)]);
    given([reserved('r1', 60), settled('r1', 60, 13)]).when(settle(12)).then([]);
  });
});

describe('gateway pricing', () => {
  it('prices tokens in micro-dollars (USD per million tokens = micro-dollars per token), rounding up', () => {
    expect(costMicros({ inputPerMTok: 3, outputPerMTok: 15 }, 10, 2)).toBe(60);
    expect(costMicros({ inputPerMTok: 0.15, outputPerMTok: 0.6 }, 1, 0)).toBe(1);
    expect(worstCaseMicros({ inputPerMTok: 3, outputPerMTok: 15 }, 100, 10)).toBe(450);
  });
});
