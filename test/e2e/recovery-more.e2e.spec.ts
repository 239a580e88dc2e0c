/**
 * DECISIONS 5 for the keyed writes of support, wallets, checkout and payments, notifications,
 * invitation resends, provider key rotations and the two admin routes (project create, catalog sync):
 * a keyed write whose append committed but whose answer a crash lost answers its retry with the
 * route's real answer, rebuilt from the write, and carries nothing out twice. A secret the lost
 * answer carried is not in it (a webhook endpoint's signing secret, a rotated provider key's new
 * secret, a new project's first API key, a checkout start's provider client secret).
 * As in idempotency-recovery.e2e.spec.ts, each key's record is put back to the state such a kill
 * leaves (`committed`, no response) while the server is down (and, on the server profile, the answer
 * Redis cached is removed: a key that was never answered has none).
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { client, type TestResponse } from '../support/http-client';
import { crashableServer } from '../support/spawn-server';

describe.each(['embedded', 'server'] as const)('support, wallet, payment, notification, invitation, provider-key and admin answers rebuilt after a crash (%s profile)', (profile) => {
  const server = crashableServer(profile, 'recovermore');
  const allowPrivate = process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
  beforeAll(() => {
    // The webhook endpoint targets a loopback address (nothing is delivered to it in this test).
    process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = 'true';
  });
  afterAll(async () => {
    if (allowPrivate === undefined) delete process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS;
    else process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS = allowPrivate;
    await server.cleanup();
  });

  it('answers each keyed write its real answer after the crash, and carries none out twice', async () => {
    await server.start();
    const apiKey = server.apiKey();
    const api = client(server.url, { 'X-Service-API-Key': apiKey });
    const admin = client(server.url, { 'X-Service-API-Key': JSON.parse(fs.readFileSync(path.join(server.dataDir, 'bootstrap.json'), 'utf8')).adminKey });
    // Unkeyed groundwork: an invitation to resend (first: a resend waits a minute after the last mail),
    // a ticket to write a message to, and funds to debit and convert.
    const projectId = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'bootstrap.json'), 'utf8')).projectId as string;
    const invite = await api.post(`/v1/projects/${projectId}/invites`, { email: 'resend-recover@example.com' });
    expect(invite.status).toBe(201);
    const ticket = await api.post('/v1/support', { subject: 'Thread', message: 'First' });
    expect(ticket.status).toBe(201);
    const ticketId = ticket.body.data.id as string;
    expect((await api.post('/v1/billing/wallets/USD/credit', { amountCents: 10000, reference: 'seed' })).status).toBe(200);
    // A checkout session to complete and a payment to verify (the payment simulator: no provider is configured).
    const session = await api.post('/v1/billing/checkout/setup-intent', { amountCents: 2000 });
    expect(session.status).toBe(201);
    const payment = await api.post('/v1/payments/stripe-initialize', { amountCents: 1500 });
    expect(payment.status).toBe(201);
    // A provider key to rotate.
    const providerId = (await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-recover' })).body.data.id as string;
    const providerKey = await api.post('/v1/iam/api-keys', { name: 'rotated', providerId });
    expect(providerKey.status).toBe(201);

    type Write = { name: string; path: string; body: unknown; status: number; key: string; admin?: boolean; first?: TestResponse };
    const writes: Write[] = [
      { name: 'ticket', path: '/v1/support', body: { subject: 'Lost answer', message: 'Please help', priority: 'high' }, status: 201, key: randomUUID() },
      { name: 'ticket message', path: `/v1/support/${ticketId}/messages`, body: { content: 'Any news?' }, status: 200, key: randomUUID() },
      { name: 'wallet credit', path: '/v1/billing/wallets/NGN/credit', body: { amountCents: 700, description: 'top-up' }, status: 200, key: randomUUID() },
      { name: 'wallet debit', path: '/v1/billing/wallets/USD/debit', body: { amountCents: 300, reference: 'order-1' }, status: 200, key: randomUUID() },
      { name: 'promo credit', path: '/v1/billing/credits/promo', body: { amountCents: 500, currency: 'USD', description: 'welcome' }, status: 201, key: randomUUID() },
      { name: 'conversion', path: '/v1/billing/convert', body: { amountCents: 1000, fromCurrency: 'USD', toCurrency: 'NGN' }, status: 200, key: randomUUID() },
      { name: 'notification', path: '/v1/notifications', body: { title: 'Hello', message: 'Recovered', type: 'info' }, status: 201, key: randomUUID() },
      { name: 'email endpoint', path: '/v1/notifications/endpoints', body: { type: 'email', email: 'ops@example.com', events: ['*'] }, status: 201, key: randomUUID() },
      { name: 'webhook endpoint', path: '/v1/notifications/endpoints', body: { type: 'webhook', url: 'https://127.0.0.1:9/hook', events: ['*'] }, status: 201, key: randomUUID() },
      { name: 'checkout start', path: '/v1/billing/checkout/setup-intent', body: { amountCents: 900 }, status: 201, key: randomUUID() },
      { name: 'checkout completion', path: `/v1/billing/checkout/${session.body.data.id}/complete`, body: { paymentMethodId: 'pm_card_visa', setupIntentId: session.body.data.attributes.setupIntentId }, status: 200, key: randomUUID() },
      { name: 'payment', path: '/v1/payments/stripe/initialize', body: { amountCents: 1200 }, status: 201, key: randomUUID() },
      { name: 'payment verification', path: '/v1/payments/verify', body: { paymentIntentId: payment.body.data.attributes.reference }, status: 200, key: randomUUID() },
      { name: 'admin project', path: '/v1/admin/projects', body: { name: 'Recovered' }, status: 201, key: randomUUID(), admin: true },
      { name: 'catalog sync', path: '/v1/admin/catalog/sync/provider_publiccloud', body: undefined, status: 202, key: randomUUID(), admin: true },
      { name: 'provider key rotation', path: `/v1/iam/api-keys/${providerKey.body.data.id}/rotate`, body: undefined, status: 200, key: randomUUID() },
    ];
    // The keyed resend: a try before the minute is up is refused (429, nothing written) under a key of
    // its own; the server's clock is then moved past the minute, and a try under a new key resends.
    const resendPath = `/v1/projects/${projectId}/invites/${invite.body.data.id}/resend`;
    const early = await api.post(resendPath, undefined, { 'Idempotency-Key': randomUUID() });
    expect(early.status).toBe(429);
    await server.advanceClock(60_000);
    const resendKey = randomUUID();
    const resent = await api.post(resendPath, undefined, { 'Idempotency-Key': resendKey });
    writes.push({ name: 'invitation resend', path: resendPath, body: undefined, status: 200, key: resendKey, first: resent });
    for (const w of writes) {
      if (w.first) {
        expect({ name: w.name, status: w.first.status }).toEqual({ name: w.name, status: w.status });
        continue;
      }
      w.first = await (w.admin ? admin : api).post(w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: w.first.status }).toEqual({ name: w.name, status: w.status });
    }
    const counts = async (a: typeof api) => ({
      tickets: (await a.get('/v1/support')).body.meta.total,
      replies: (await a.get(`/v1/support/${ticketId}`)).body.data.attributes.replies,
      credits: (await a.get('/v1/billing/credits')).body.meta.total,
      payments: ((await a.get('/v1/billing/credits?limit=100')).body.data as Array<{ attributes: { source: string } }>).filter((c) => c.attributes.source !== 'top-up').length,
      wallets: (await a.get('/v1/billing/wallets')).body.data.map((x: { attributes: { balanceCents: number } }) => x.attributes.balanceCents),
      notifications: (await a.get('/v1/notifications')).body.meta.total,
      endpoints: (await a.get('/v1/notifications/endpoints')).body.meta.total,
      projects: (await admin.get('/v1/admin/projects')).body.meta.total,
      invites: (await a.get(`/v1/projects/${projectId}/invites`)).body.data.map((i: { attributes: unknown }) => i.attributes),
      providerKey: (await a.get('/v1/iam/api-keys')).body.data.map((k: { attributes: { prefix: string; rotatedAt: string } }) => [k.attributes.prefix, k.attributes.rotatedAt]),
    });
    const before = await counts(api);

    await server.kill();
    const keys = writes.map((w) => w.key);
    const lost = await server.loseAnswers(keys);
    expect(lost.keys).toEqual([...keys].sort());
    if (profile === 'server') expect(lost.uncached).toBe(keys.length);

    await server.start();
    const api2 = client(server.url, { 'X-Service-API-Key': apiKey });
    const admin2 = client(server.url, { 'X-Service-API-Key': JSON.parse(fs.readFileSync(path.join(server.dataDir, 'bootstrap.json'), 'utf8')).adminKey });
    for (const w of writes) {
      const retry = await (w.admin ? admin2 : api2).post(w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, status: retry.status, replayed: retry.headers['idempotent-replayed'] }).toEqual({ name: w.name, status: w.status, replayed: 'true' });
      if (w.name === 'webhook endpoint' || w.name === 'provider key rotation') {
        const { secret, ...attributes } = w.first!.body.data.attributes;
        expect(secret).toMatch(w.name === 'webhook endpoint' ? /^whsec_/ : /^pk_/);
        expect(retry.body.data).toEqual({ ...w.first!.body.data, attributes });
        expect(retry.body.meta.secret).toMatch(/Not shown/);
        expect(retry.text).not.toContain(secret);
      } else if (w.name === 'admin project') {
        const [{ attributes: { key, ...attributes }, ...firstKey }] = w.first!.body.included;
        expect(key).toMatch(/^svc_/);
        expect(retry.body.data).toEqual(w.first!.body.data);
        expect(retry.body.included).toEqual([{ ...firstKey, attributes }]);
        expect(retry.body.meta.key).toMatch(/Not shown/);
        expect(retry.text).not.toContain(key);
      } else if (w.name === 'checkout start') {
        const { clientSecret, ...attributes } = w.first!.body.data.attributes;
        expect(clientSecret).toMatch(/_secret_/);
        expect(retry.body.data).toEqual({ ...w.first!.body.data, attributes });
        expect(retry.body.meta.clientSecret).toMatch(/Not shown/);
        expect(retry.text).not.toContain(clientSecret);
      } else {
        expect({ name: w.name, body: retry.body }).toEqual({ name: w.name, body: w.first!.body });
      }
      // From then on the recovered answer is the stored one.
      const again = await (w.admin ? admin2 : api2).post(w.path, w.body, { 'Idempotency-Key': w.key });
      expect({ name: w.name, text: again.text }).toEqual({ name: w.name, text: retry.text });
    }
    expect(await counts(api2)).toEqual(before);
  }, 300000);
});
