/**
 * DECISIONS 5 recovery for invoices: a keyed create or pay whose write committed but whose answer was
 * never stored (the process died between the two) answers its retry with the invoice as written (the
 * pay: paid, naming its debit), and is not carried out again (one invoice, one debit). As in
 * idempotency-recovery.e2e.spec.ts, the server runs in its own process, is SIGKILLed, and each key's
 * record is put back to the state such a kill leaves (`committed`, no response) while it is down.
 */
import { randomUUID } from 'node:crypto';
import { client } from '../support/http-client';
import { crashableServer } from '../support/spawn-server';

describe.each(['embedded', 'server'] as const)('invoice create and pay answers rebuilt after a crash (%s profile)', (profile) => {
  const server = crashableServer(profile, 'invrecover');
  afterAll(() => server.cleanup());

  it('answers the keyed create and pay with the invoice as written, once', async () => {
    await server.start();
    const apiKey = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': apiKey });
    expect((await api.post('/v1/billing/wallets/USD/credit', { amountCents: 5000 })).status).toBe(200);
    const createKey = randomUUID();
    const payKey = randomUUID();
    const body = { currency: 'USD', amountCents: 1200, taxRate: 0.1, dueDate: '2030-06-30' };
    const created = await api.post('/v1/invoices', body, { 'Idempotency-Key': createKey });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const paid = await api.patch(`/v1/invoices/${id}/pay`, {}, { 'Idempotency-Key': payKey });
    expect([paid.status, paid.body.data.status]).toEqual([200, 'paid']);

    await server.kill();
    expect((await server.loseAnswers([createKey, payKey])).keys).toEqual([createKey, payKey].sort());

    await server.start();
    const api2 = client(server.url, { 'X-Service-API-Key': apiKey });
    const createRetry = await api2.post('/v1/invoices', body, { 'Idempotency-Key': createKey });
    expect([createRetry.status, createRetry.headers['idempotent-replayed']]).toEqual([201, 'true']);
    // As of the create's write: pending, the number it took.
    expect(createRetry.body).toEqual(created.body);
    const payRetry = await api2.patch(`/v1/invoices/${id}/pay`, {}, { 'Idempotency-Key': payKey });
    expect([payRetry.status, payRetry.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(payRetry.body).toEqual(paid.body);

    // Nothing was carried out twice.
    expect((await api2.get('/v1/invoices?limit=100')).body.meta.total).toBe(1);
    expect((await api2.get('/v1/billing/wallets/USD')).body.data.attributes.balanceCents).toBe(5000 - 1320);
  }, 240000);
});
