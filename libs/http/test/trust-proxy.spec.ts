import { call, startApp } from './fixtures';

describe('trustProxy behind a TLS-terminating proxy (tls: false)', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp({ tls: false, trustProxy: true });
  });
  afterAll(async () => app?.http.close());

  it('lets X-Forwarded-Proto decide', async () => {
    expect(app.url.startsWith('http://')).toBe(true);
    const https = await call(`${app.url}/v1/public/ping`, { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(https.status).toBe(200);
    const http = await call(`${app.url}/v1/public/ping`, { headers: { 'X-Forwarded-Proto': 'http' } });
    expect(http.status).toBe(403);
    expect(http.json.errors[0].code).toBe('HTTPS_REQUIRED');
    const none = await call(`${app.url}/v1/public/ping`);
    expect(none.status).toBe(403);
  });

  it('builds list links from the forwarded protocol and host', async () => {
    const r = await call(`${app.url}/v1/widgets?limit=10`, {
      headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.test', 'X-Service-API-Key': 'svc_test_owner' },
    });
    expect(r.json.links.next.replace(/&cursor=[A-Za-z0-9_-]+$/, '')).toBe('https://api.example.test/v1/widgets?limit=10&page=2');
  });
});

describe('trustProxy with TLS on', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp({ trustProxy: true });
  });
  afterAll(async () => app?.http.close());

  it('rejects X-Forwarded-Proto: http and accepts https or none', async () => {
    expect((await call(`${app.url}/v1/public/ping`, { headers: { 'X-Forwarded-Proto': 'http' } })).status).toBe(403);
    expect((await call(`${app.url}/v1/public/ping`, { headers: { 'X-Forwarded-Proto': 'https' } })).status).toBe(200);
    expect((await call(`${app.url}/v1/public/ping`)).status).toBe(200);
  });
});

describe('without trustProxy', () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp({ trustProxy: false });
  });
  afterAll(async () => app?.http.close());

  it('ignores X-Forwarded-* (links use the real protocol and Host)', async () => {
    const r = await call(`${app.url}/v1/widgets?limit=10`, {
      headers: { 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'evil.test', 'X-Service-API-Key': 'svc_test_owner' },
    });
    expect(r.status).toBe(200);
    expect(r.json.links.next.replace(/&cursor=[A-Za-z0-9_-]+$/, '')).toBe(`${app.url}/v1/widgets?limit=10&page=2`);
  });

  it('refuses tls: false without trustProxy', async () => {
    await expect(startApp({ tls: false, trustProxy: false })).rejects.toThrow(/trustProxy/);
  });
});
