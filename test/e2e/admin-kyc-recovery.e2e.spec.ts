/**
 * DECISIONS 5 for the customer's KYC submit: a keyed submit whose write committed but whose answer a
 * crash lost answers its retry with the route's real 201, and records no second request. As in
 * members-recovery.e2e.spec.ts, the key's record is put back to the state such a kill leaves
 * (`committed`, no response) while the server is down (and the answer Redis cached is removed).
 */
import { randomUUID } from 'node:crypto';
import { client } from '../support/http-client';
import { crashableServer } from '../support/spawn-server';

describe.each(['embedded', 'server'] as const)('a KYC submit answered after a crash (%s profile)', (profile) => {
  const server = crashableServer(profile, 'kyc');
  afterAll(() => server.cleanup());

  it('answers the keyed retry with the real 201 and the one request it recorded', async () => {
    await server.start();
    const apiKey = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': apiKey });
    const body = { legalName: 'Acme Ltd', registrationNumber: 'RC-1', country: 'NG', address: '1 Marina, Lagos', contactName: 'Ada', contactEmail: 'ada@acme.test' };
    const key = randomUUID();
    const first = await api.post('/v1/kyc', body, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);

    await server.kill();
    expect((await server.loseAnswers([key])).keys).toEqual([key]);

    await server.start();
    const api2 = client(server.url, { 'X-Service-API-Key': apiKey });
    const retry = await api2.post('/v1/kyc', body, { 'Idempotency-Key': key });
    expect({ status: retry.status, replayed: retry.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: 'true' });
    expect(retry.body).toEqual(first.body);
    expect((await api2.get('/v1/kyc')).body.data.attributes.request.id).toBe(first.body.data.id);
    // a new key is a new submit, refused while that one is pending
    expect((await api2.post('/v1/kyc', body, { 'Idempotency-Key': randomUUID() })).status).toBe(409);
  }, 240000);
});
