import { dataScope } from '../../libs/domain/shared/scope';
import { modeOfKey } from '../../libs/http/src/auth';
import { walletStream } from '../../libs/domain/billing/events';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;

describe.each<Profile>(['embedded', 'server'])('billing wallets (%s profile)', (profile) => {
  let srv: TestServer;
  let owner: Api;
  let admin: Api;
  let other: Api;
  let otherProject: string;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    owner = srv.as(srv.bootstrap.apiKey);
    admin = srv.as(srv.bootstrap.adminKey);
    const project = await admin.post('/v1/admin/projects', { name: `wallets-other-${profile}` });
    expect(project.status).toBe(201);
    // The project's first key is a test key: its wallets are the project's test-mode scope (DECISIONS 21).
    otherProject = dataScope(project.body.data.id, modeOfKey(project.body.included[0].attributes.key));
    other = srv.as(project.body.included[0].attributes.key);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const balance = async (api: Api, currency: string) => (await api.get(`/v1/billing/wallets/${currency}`)).body.data.attributes.balanceCents as number;
  /** The wallet's balance as the sum of its events (credits minus debits). */
  const eventSum = async (projectId: string, currency: 'USD' | 'NGN') =>
    (await srv.platform.events.readStream(walletStream(projectId, currency))).reduce((sum, e) => sum + (e.type === 'billing.WalletCredited.v1' ? 1 : -1) * (e.data.amountCents as number), 0);

  it('lists one wallet per currency (zero until credited) in the list envelope, and reads each', async () => {
    const list = await owner.get('/v1/billing/wallets');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(list.body.data.map((w: { id: string; attributes: { balanceCents: number } }) => [w.id, w.attributes.balanceCents])).toEqual([['NGN', 0], ['USD', 0]]);
    const paged = await owner.get('/v1/billing/wallets?limit=1&page=2&sort=-currency');
    expect(paged.body.data.map((w: { id: string }) => w.id)).toEqual(['NGN']);
    expect(paged.body.links).not.toHaveProperty('next');
    const usd = await owner.get('/v1/billing/wallets/USD');
    expect(usd.status).toBe(200);
    expect(usd.body.data).toMatchObject({ id: 'USD', type: 'wallets', attributes: { currency: 'USD', balanceCents: 0 } });
    expect((await owner.get('/v1/billing/wallets/EUR')).status).toBe(400);
    expect((await owner.get('/v1/billing/wallets?sort=name')).status).toBe(400);
  });

  it('credits with Idempotency-Key (replayed byte for byte, a different body 422), and refuses bad amounts with 400', async () => {
    const headers = { 'Idempotency-Key': `credit-${profile}` };
    const first = await owner.post('/v1/billing/wallets/USD/credit', { amountCents: 2500 }, headers);
    expect(first.status).toBe(200);
    expect(first.body.data.attributes).toMatchObject({ currency: 'USD', balanceCents: 2500, creditedCents: 2500, creditCount: 1 });
    expect(first.body.meta.movement).toMatchObject({ kind: 'credit', amountCents: 2500, source: 'top-up', applied: true });
    const replay = await owner.post('/v1/billing/wallets/USD/credit', { amountCents: 2500 }, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect((await owner.post('/v1/billing/wallets/USD/credit', { amountCents: 2600 }, headers)).body.errors[0].code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await balance(owner, 'USD')).toBe(2500);
    for (const amountCents of [0, -5, 1.5, '10', Number.MAX_SAFE_INTEGER + 1]) {
      const bad = await owner.post('/v1/billing/wallets/USD/credit', { amountCents });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].source.pointer).toBe('/amountCents');
    }
    // another project's wallet is its own
    expect(await balance(other, 'USD')).toBe(0);
  });

  it('50 concurrent debits of a wallet that can afford 10: exactly 10 succeed, 40 get 422 INSUFFICIENT_FUNDS, the balance is 0 and the events add up', async () => {
    await other.post('/v1/billing/wallets/NGN/credit', { amountCents: 1000 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => other.post('/v1/billing/wallets/NGN/debit', { amountCents: 100 })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(40);
    for (const refused of answers.filter((a) => a.status === 422)) expect(refused.body.errors[0].code).toBe('INSUFFICIENT_FUNDS');
    // each success saw its own balance: 900, 800, … 0, once each
    expect(answers.filter((a) => a.status === 200).map((a) => a.body.data.attributes.balanceCents).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i * 100));
    expect(await balance(other, 'NGN')).toBe(0);
    const events = await srv.platform.events.readStream(walletStream(otherProject, 'NGN'));
    expect(events.map((e) => e.type)).toEqual(['billing.WalletCredited.v1', ...Array(10).fill('billing.WalletDebited.v1')]);
    expect(await eventSum(otherProject, 'NGN')).toBe(0);
    expect(events.map((e) => e.data.balanceCents)).toEqual([1000, 900, 800, 700, 600, 500, 400, 300, 200, 100, 0]);
  });

  it('debits once per reference, and never below zero', async () => {
    const first = await owner.post('/v1/billing/wallets/USD/debit', { amountCents: 500, reference: 'order-1' });
    expect(first.status).toBe(200);
    expect(first.body.data.attributes.balanceCents).toBe(2000);
    const again = await owner.post('/v1/billing/wallets/USD/debit', { amountCents: 500, reference: 'order-1' });
    expect(again.status).toBe(200);
    expect(again.body.meta.movement).toMatchObject({ applied: false, id: first.body.meta.movement.id });
    expect(again.body.data.attributes.balanceCents).toBe(2000);
    const over = await owner.post('/v1/billing/wallets/USD/debit', { amountCents: 2001 });
    expect(over.status).toBe(422);
    expect(over.body.errors[0]).toMatchObject({ status: '422', code: 'INSUFFICIENT_FUNDS' });
    expect(await balance(owner, 'USD')).toBe(2000);
  });

  it('converts at the admin-set rate, rounded down to whole cents, with the rate recorded in both events', async () => {
    const dflt = await owner.get('/v1/billing/rates/USD/NGN');
    expect(dflt.status).toBe(200);
    expect(dflt.body.data.attributes).toMatchObject({ from: 'USD', to: 'NGN', origin: 'default' });
    expect((await owner.get('/v1/billing/rates/USD/USD')).status).toBe(400);
    const set = await admin.send('PUT', '/v1/admin/billing/rates/USD/NGN', { rate: '1234.5678' });
    expect(set.status).toBe(200);
    expect(set.body.data.attributes).toMatchObject({ rate: '1234.5678', origin: 'admin' });
    expect((await owner.send('PUT', '/v1/admin/billing/rates/USD/NGN', { rate: '2' })).status).toBe(403);
    expect((await admin.send('PUT', '/v1/admin/billing/rates/USD/NGN', { rate: '-2' })).status).toBe(400);
    expect((await owner.get('/v1/billing/rates/USD/NGN')).body.data.attributes.rate).toBe('1234.5678');

    const converted = await owner.post('/v1/billing/convert', { amountCents: 333, fromCurrency: 'USD', toCurrency: 'NGN' });
    expect(converted.status).toBe(200);
    // 333 × 1234.5678 = 411111.0774 → 411111
    expect(converted.body.data.attributes).toMatchObject({ fromCurrency: 'USD', toCurrency: 'NGN', fromAmountCents: 333, toAmountCents: 411111, rate: '1234.5678', applied: true });
    expect(converted.body.data.attributes.balances).toEqual([{ currency: 'USD', balanceCents: 1667 }, { currency: 'NGN', balanceCents: 411111 }]);
    expect(await balance(owner, 'NGN')).toBe(411111);
    const conversionId = converted.body.data.id;
    const [debit] = (await srv.platform.events.readStream(walletStream(srv.bootstrap.scope, 'USD'))).filter((e) => e.data.source === 'conversion');
    const [credit] = (await srv.platform.events.readStream(walletStream(srv.bootstrap.scope, 'NGN'))).filter((e) => e.data.source === 'conversion');
    expect(debit.data).toMatchObject({ amountCents: 333, reference: conversionId, conversion: { rate: '1234.5678', toAmountCents: 411111 } });
    expect(credit.data).toMatchObject({ amountCents: 411111, reference: conversionId, conversion: { rate: '1234.5678', fromAmountCents: 333 } });
    expect(credit.metadata.causationId).toBe(debit.id);

    // NGN → USD at the default table rounds down too, and never overdraws
    const back = await owner.post('/v1/billing/convert', { amountCents: 1999, fromCurrency: 'NGN', toCurrency: 'USD' });
    expect(back.body.data.attributes).toMatchObject({ toAmountCents: 1, rate: '0.000666666667' });
    const tooMuch = await owner.post('/v1/billing/convert', { amountCents: 10_000_000, fromCurrency: 'NGN', toCurrency: 'USD' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.errors[0].code).toBe('INSUFFICIENT_FUNDS');
    expect((await owner.post('/v1/billing/convert', { amountCents: 1, fromCurrency: 'NGN', toCurrency: 'USD' })).status).toBe(400); // less than a cent
    expect((await owner.post('/v1/billing/convert', { amountCents: 5, fromCurrency: 'USD', toCurrency: 'USD' })).status).toBe(400);
  });

  it('credits a promo once per reference and lists every credit with its source and reference', async () => {
    const before = await balance(owner, 'NGN');
    const promo = await owner.post('/v1/billing/credits/promo', { amountCents: 700, currency: 'NGN', description: 'Launch week', reference: 'launch-week' });
    expect(promo.status).toBe(201);
    expect(promo.body.data).toMatchObject({ type: 'credits', attributes: { amountCents: 700, currency: 'NGN', source: 'promo', reference: 'launch-week', applied: true, balanceCents: before + 700 } });
    const twice = await owner.post('/v1/billing/credits/promo', { amountCents: 700, currency: 'NGN', reference: 'launch-week' });
    expect(twice.body.data).toMatchObject({ id: promo.body.data.id, attributes: { applied: false, balanceCents: before + 700 } });
    expect(await balance(owner, 'NGN')).toBe(before + 700);

    const promos = await owner.get('/v1/billing/credits?source=promo');
    expect(promos.status).toBe(200);
    expect(promos.body.meta.total).toBe(1);
    expect(promos.body.data[0]).toMatchObject({ id: promo.body.data.id, attributes: { source: 'promo', reference: 'launch-week', description: 'Launch week' } });
    const all = await owner.get('/v1/billing/credits?limit=2&sort=amountCents');
    expect(all.body.meta).toMatchObject({ total: 4, totalPages: 2 });
    expect(all.body.data.map((c: { attributes: { amountCents: number } }) => c.attributes.amountCents)).toEqual([1, 700]);
    expect(all.body.links.next).toContain('sort=amountCents');
    expect((await owner.get('/v1/billing/credits?source=gift')).status).toBe(400);
    expect((await other.get('/v1/billing/credits')).body.meta.total).toBe(1);
  });

  it('a wallet\'s balance equals the sum of its events after a replay into a fresh read model', async () => {
    const before = (await owner.get('/v1/billing/wallets')).body.data;
    const rebuilt = await admin.post('/v1/admin/projections/billing_wallets/rebuild');
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.data.attributes.collection).toMatch(/^billing_wallets_v1_r/);
    const after = (await owner.get('/v1/billing/wallets')).body.data;
    expect(after).toEqual(before);
    for (const w of after) expect(w.attributes.balanceCents).toBe(await eventSum(srv.bootstrap.scope, w.id));
    expect(after.find((w: { id: string }) => w.id === 'USD').attributes.balanceCents).toBe(1668); // 2000 − 333 + 1 (the NGN→USD conversion)
    expect(await balance(other, 'NGN')).toBe(await eventSum(otherProject, 'NGN'));
  });
});
