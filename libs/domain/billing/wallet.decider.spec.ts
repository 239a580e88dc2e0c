import { DomainError } from '../shared/domain-error';
import type { WalletEvent } from './events';
import { convertCents, normaliseRate } from './money';
import { planConversion, referenceStreamOf, walletDecider, walletReferenceUsed, type WalletCommand, type WalletState } from './wallet.decider';

const at = '2026-01-01T00:00:00.000Z';
const base = { projectId: 'p1', currency: 'USD' as const, description: null, conversion: null, now: at };
const credit = (amountCents: number, reference: string): WalletCommand => ({ ...base, type: 'CreditWallet', creditId: `c-${reference}`, source: 'top-up', amountCents, reference });
const debit = (amountCents: number, reference: string): WalletCommand => ({ ...base, type: 'DebitWallet', debitId: `d-${reference}`, source: 'debit', amountCents, reference });

function run(commands: WalletCommand[]): { state: WalletState; events: WalletEvent[] } {
  let state = walletDecider.initialState();
  const events: WalletEvent[] = [];
  for (const c of commands) for (const e of walletDecider.decide(c, state)) (events.push(e), (state = walletDecider.evolve(state, e)));
  return { state, events };
}

describe('wallet decider', () => {
  it('keeps the balance as the sum of its events and records it after each', () => {
    const { state, events } = run([credit(1000, 'a'), debit(300, 'x'), credit(5, 'b')]);
    expect(state.balanceCents).toBe(705);
    expect(events.map((e) => e.data.balanceCents)).toEqual([1000, 700, 705]);
  });

  it('refuses a debit beyond the balance with INSUFFICIENT_FUNDS', () => {
    const { state } = run([credit(100, 'a')]);
    expect(() => walletDecider.decide(debit(101, 'x'), state)).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_FUNDS' }));
    expect(walletDecider.decide(debit(100, 'x'), state)).toHaveLength(1);
  });

  it("records a reference's use on its own stream per wallet and direction, naming the movement; the state is the balance alone", () => {
    const { state } = run([credit(100, 'a'), debit(10, 'a')]);
    expect(state).toEqual({ balanceCents: 90 });
    expect(referenceStreamOf(credit(100, 'a'))).not.toBe(referenceStreamOf(debit(10, 'a')));
    expect(referenceStreamOf(credit(100, 'a'))).not.toBe(referenceStreamOf({ ...credit(100, 'a'), currency: 'NGN' }));
    expect(walletReferenceUsed(debit(10, 'a')).data).toMatchObject({ kind: 'debit', reference: 'a', movementId: 'd-a', walletStream: 'wallet-p1-USD' });
  });

  it('refuses amounts that are not positive safe integers', () => {
    for (const amount of [0, -1, 0.5, Number.MAX_SAFE_INTEGER + 1]) expect(() => walletDecider.decide(credit(amount, 'a'), walletDecider.initialState())).toThrow(DomainError);
  });
});

describe('conversion', () => {
  it('rounds down to whole cents with exact decimal arithmetic', () => {
    expect(convertCents(333, '1234.5678')).toBe(411111);
    expect(convertCents(1999, '0.000666666667')).toBe(1);
    expect(convertCents(10, '0.1')).toBe(1);
    expect(convertCents(3, '0.1')).toBe(0);
    expect(convertCents(7, '1.15')).toBe(8); // 8.05
    expect(normaliseRate('1500.500')).toBe('1500.5');
    expect(() => normaliseRate('1e3')).toThrow(DomainError);
    expect(() => normaliseRate('0')).toThrow(DomainError);
  });

  it('records its decision in the debit: the rate and both amounts; one that credits nothing is refused', () => {
    expect(planConversion('cv1', 'USD', 'NGN', 333, '1234.5678')).toEqual({ conversionId: 'cv1', fromCurrency: 'USD', toCurrency: 'NGN', fromAmountCents: 333, toAmountCents: 411111, rate: '1234.5678' });
    expect(() => planConversion('cv2', 'NGN', 'USD', 1, '0.0001')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    const state = run([credit(1000, 'a')]).state;
    const conversion = planConversion('cv3', 'USD', 'NGN', 100, '2');
    const ok: WalletCommand = { ...debit(100, 'cv3'), source: 'conversion', conversion };
    expect(walletDecider.decide(ok, state)[0].data).toMatchObject({ conversion, amountCents: 100 });
    expect(() => walletDecider.decide({ ...ok, conversion: { ...conversion, toAmountCents: 999 } }, state)).toThrow(DomainError);
  });
});
