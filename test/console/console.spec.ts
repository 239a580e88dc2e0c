/**
 * The web console (issue 27) in a real headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core) against the real API on the embedded profile: sign in, create an instance from
 * the form and watch it turn active without a reload, open a console session, create and revoke an
 * API key, read an instance's timeline at an earlier instant, the event history's live tail, sign
 * out. Every page is checked with axe-core (no serious or critical violation) and under the API's
 * CSP (no violation reported); screenshots go to test-results/console/ (gitignored).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { eventually } from '../support/wait';
import { startIdentityProvider, type IdentityProvider } from '../support/jwks';
import { startTestServer, type TestServer } from '../support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { startTestGateway, type TestGateway } from '../e2e/gateway.support';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(__dirname, '../../test-results/console');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const ISSUER = 'https://idp.console.test/';

/** A port free right now on loopback, for the gateway the API must know the address of before it starts. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

describe('web console (embedded profile, headless Chromium)', () => {
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let providerId: string;
  let receiver: WebhookReceiver;
  let idp: IdentityProvider;
  let gw: TestGateway;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // The bundle the API serves under /console (scripts/build-console.cjs, about a second).
    execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/build-console.cjs')], { stdio: 'pipe' });
    fs.mkdirSync(SHOTS, { recursive: true });
    receiver = await startWebhookReceiver();
    idp = await startIdentityProvider(ISSUER, 'console');
    // The webhook receiver listens on loopback. The gateway's port is known to the API (the console's
    // gateway URL and CSP come from it), and JWTs of the suite's identity provider are accepted.
    const gatewayPort = await freePort();
    srv = await startTestServer('embedded', { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', GATEWAY_PORT: String(gatewayPort), JWT_ISSUER: ISSUER, JWT_JWKS_FILE: idp.jwksFile });
    api = srv.as(srv.bootstrap.apiKey);
    // The gateway beside it, as `npm start` runs it, allowing the console's origin (and only it) for CORS.
    gw = await startTestGateway(srv, { port: gatewayPort, consoleOrigins: [new URL(srv.url).origin] });
    const provider = await api.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-console-ui' });
    expect(provider.status).toBe(201);
    providerId = provider.body.data.id;
    // Playwright gives each launch a fresh temporary profile (its own --user-data-dir).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context = await browser.newContext({ baseURL: srv.url, ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
    // Runs through the DevTools protocol, outside the page's CSP: records what the CSP blocks.
    await context.addInitScript({ content: "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));" });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(m.text());
    });
  }, 180_000); // an embedded start takes most of a minute on a busy machine
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await srv?.stop();
    await receiver?.close();
    idp?.cleanup();
  });

  /** An expression evaluated in the page (a string: the page's globals are not this file's types). */
  const inPage = <T>(expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;

  /** axe-core on the page as shown (no serious or critical violation), then a full-page screenshot. */
  const check = async (name: string) => {
    await page.evaluate(AXE_SOURCE);
    const violations = await inPage<Array<{ id: string; impact: string; targets: string[] }>>(
      "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))",
    );
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(await inPage<string[]>('window.__csp')).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };

  it('is served under a CSP without inline script or style: the page revalidated, the hashed assets cached', async () => {
    const index = await srv.anonymous.get('/console');
    expect(index.status).toBe(200);
    expect(index.headers['cache-control']).toBe('no-cache');
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(index.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/console\/assets\/console-[A-Z0-9]+\.js)"/.exec(index.text)![1]!;
    const asset = await srv.anonymous.get(script);
    expect([asset.status, asset.headers['cache-control'], asset.headers['content-type']]).toEqual([200, 'public, max-age=31536000, immutable', 'text/javascript; charset=utf-8']);
    expect((await srv.anonymous.get('/console/assets/nothing-here.js')).status).toBe(404);
  });

  it('signs in with a project API key kept in session storage only; a wrong key shows the API detail next to the field; the overview retries a failed job', async () => {
    // A job that fails for good (3 attempts, 1 s and 2 s apart), for the overview's failed jobs.
    const doomed = await api.post('/v1/instances', { name: 'doomed', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium', tags: { simulate: 'fail:always' } });
    expect(doomed.status).toBe(202);
    const jobId = doomed.body.jobId as string;
    await eventually(() => api.get(`/v1/jobs/${jobId}`), (r) => r.body.data.attributes.status === 'failed', 30_000);

    await page.goto('/console');
    await page.getByLabel('Project API key').fill('svc_test_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('#apiKey-error').textContent()).resolves.toBe('Invalid credentials');
    await check('sign-in-error');

    await page.getByLabel('Project API key').fill(srv.bootstrap.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await inPage("sessionStorage.getItem('console.apiKey')")).toBe(srv.bootstrap.apiKey);
    expect(await inPage('document.cookie')).toBe('');
    expect(page.url()).not.toContain(srv.bootstrap.apiKey);
    await page.locator('.chart canvas').first().waitFor();
    await page.locator('[data-kind="Instances"] .status-error').waitFor();
    const retry = page.getByRole('button', { name: `Retry job ${jobId}` });
    await check('overview');
    await retry.click();
    await eventually(() => srv.platform.events.readStream(`job-${jobId}`), (events) => events.some((e) => e.type === 'jobs.JobRetried.v1'));
  });

  it('creates an instance from the catalog-fed form with its estimate, and the row turns active without a reload', async () => {
    await page.getByRole('link', { name: 'Instances' }).click();
    await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor();
    await page.getByText('Live: updates arrive from the event stream.').waitFor();
    // Keyboard: the skip link comes right before the navigation, and moves focus to the content, not the route.
    await page.getByRole('link', { name: 'Overview' }).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await inPage('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await inPage('[document.activeElement.id, location.hash]')).toEqual(['main', '#/instances']);
    // A mark the page keeps only as long as it is not reloaded.
    await inPage('window.__mark = 27');

    // Errors are shown as the API's detail next to the field its pointer names.
    await page.getByRole('button', { name: 'Create instance' }).click();
    await expect(page.locator('#new-name-error').textContent()).resolves.toBe('name must not be empty');

    const expected = await api.post('/v1/cost-estimates', { items: [{ resourceType: 'instance', attributes: { name: 'x', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' } }] });
    const hourly = `$${(expected.body.data.attributes.hourlyCents / 100).toFixed(2)}`;
    await page.getByLabel('Name').first().fill('console-web-1');
    await page.getByLabel('Region').first().selectOption('us-east-1');
    await page.getByLabel('Plan').selectOption('pc-t3-medium');
    await page.getByTestId('estimate').getByText(hourly, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.getByText('Instance console-web-1 requested.').waitFor();

    const created = await eventually(() => api.get('/v1/instances?limit=100'), (r) => r.body.data.some((i: { attributes: { name: string } }) => i.attributes.name === 'console-web-1'));
    const id = created.body.data.find((i: { attributes: { name: string } }) => i.attributes.name === 'console-web-1').id as string;
    const row = page.locator(`tr[data-id="${id}"]`);
    await row.locator('.status-active').waitFor({ timeout: 30_000 });
    expect(await inPage('window.__mark')).toBe(27);
    expect((await api.get(`/v1/instances/${id}`)).body.data.attributes.status).toBe('active');
    await check('instances');

    // A console session: the one-time URL is shown, the session is open on the API.
    await row.getByRole('button', { name: 'Open console of console-web-1' }).click();
    const link = page.getByRole('link', { name: 'Open the console' });
    await link.waitFor();
    const url = new URL((await link.getAttribute('href'))!);
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const sessions = await api.get(`/v1/console-sessions?resourceId=${id}`);
    expect(sessions.body.data.map((s: { attributes: { status: string } }) => s.attributes.status)).toEqual(['open']);
    await check('instances-console-session');

    // The timeline: the slider's first event shows the instance as it was then, before it was active.
    await row.getByRole('link', { name: 'console-web-1' }).click();
    await page.getByRole('heading', { name: 'Instance timeline', level: 1 }).waitFor();
    await page.locator('dl.asof .status-active').waitFor();
    const slider = page.getByRole('slider');
    await slider.focus();
    await page.keyboard.press('Home');
    await page.locator('dl.asof .status-creating').waitFor();
    const asOf = (await page.locator('dl.asof').getAttribute('data-asof'))!;
    // Its history is the event history's (GET /v1/events?subject=), oldest first.
    const events = await api.get(`/v1/events?subject=instance-${id}&sort=time&limit=100`);
    const first = events.body.data[0];
    expect(first.attributes.streamrevision).toBe(0);
    expect(asOf).toBe(first.attributes.time);
    // Times to the millisecond, so events a few ms apart read in order.
    const ms = `${new Date(asOf).toISOString().slice(0, 23).replace('T', ' ')} UTC`;
    await expect(page.locator('#asof-h').textContent()).resolves.toBe(`As of ${ms}`);
    await expect(page.locator('ol.timeline li').first().textContent()).resolves.toContain(`${ms}: ${first.attributes.eventType}`);
    expect((await api.get(`/v1/instances/${id}?asOf=${encodeURIComponent(asOf)}`)).body.data.attributes.status).toBe('creating');
    expect(await inPage('window.__mark')).toBe(27);
    await check('instance-timeline');
  });

  it('creates an API key shown once with a copy button, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.locator('#key-name-error').textContent()).resolves.toMatch(/name/);

    await page.getByLabel('Name').fill('ci-console');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key-value').textContent())!;
    expect(key).toMatch(/^svc_test_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await inPage('navigator.clipboard.readText()')).toBe(key);
    expect((await srv.as(key).get('/v1/instances')).status).toBe(200);
    await check('api-keys-created');

    await page.getByRole('button', { name: 'Done, hide the key' }).click();
    expect(await page.locator('#new-key-value').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke ci-console' }).click();
    await page.getByRole('button', { name: 'Confirm revoke ci-console' }).click();
    await page.getByRole('button', { name: 'Revoke ci-console' }).waitFor({ state: 'detached' });
    expect((await srv.as(key).get('/v1/instances')).status).toBe(401);
    await check('api-keys');
  });

  it('adds a webhook endpoint (secret shown once) and lists its deliveries', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.locator('#hook-url-error').textContent()).resolves.toMatch(/url/i);

    await page.getByLabel('URL (https)').fill(`${receiver.url}/console`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('#new-hook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await inPage('navigator.clipboard.readText()')).toBe(secret);
    await check('webhooks-created');

    expect((await api.post('/v1/notifications', { title: 'From the console test', message: 'hello' })).status).toBe(201);
    await eventually(async () => receiver.received.filter((r) => r.path === '/console').length, (n) => n > 0);
    const [endpoint] = (await api.get('/v1/notifications/endpoints')).body.data.filter((e: { attributes: { url: string } }) => e.attributes.url === `${receiver.url}/console`);
    await eventually(() => api.get(`/v1/notifications/endpoints/${endpoint.id}/deliveries`), (r) => r.body.data[0]?.attributes.status === 'delivered');
    const card = page.locator(`.endpoint[data-id="${endpoint.id}"]`);
    await card.getByRole('button', { name: 'Deliveries' }).click();
    await card.locator('.deliveries .status-delivered').first().waitFor();
    await check('webhooks');
  });

  it('lists invoices and downloads one as a PDF', async () => {
    const invoice = await api.post('/v1/invoices', { currency: 'USD', amountCents: 1234, dueDate: '2030-01-31' });
    expect([invoice.status, invoice.text.slice(0, 300)]).toEqual([201, expect.any(String)]);
    const number = invoice.body.data.invoiceNumber as string;
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download PDF of ${number}` }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`${number}.pdf`);
    const saved = path.join(SHOTS, `${number}.pdf`);
    await file.saveAs(saved);
    expect(fs.readFileSync(saved).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await check('invoices');
  });

  it('shows the event history and tails new events live; signing out forgets the key', async () => {
    await page.getByRole('link', { name: 'Event history' }).click();
    await page.getByRole('heading', { name: 'Event history', level: 1 }).waitFor();
    await page.locator('table.events code', { hasText: 'compute.InstanceRequested.v1' }).first().waitFor();
    await page.getByLabel('Live tail').check();
    await page.getByText(/Following the stream/).waitFor();
    const provider = await api.post('/v1/providers', { name: 'provider_multicloud', apiKey: 'sk-console-tail' });
    expect(provider.status).toBe(201);
    await page.locator('#tail-h + p + table').getByText(`provider-${provider.body.data.id}`).waitFor();
    await check('events');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Project API key').waitFor();
    expect(await inPage('sessionStorage.length')).toBe(0);
    expect(pageErrors).toEqual([]);
  });
  it("signs in with the identity provider's JWT, kept in session storage only, and calls the API and its event stream with it", async () => {
    await page.getByLabel('Identity provider (JWT)').check();
    await page.getByLabel('Identity provider token (JWT)').fill('not.a.jwt');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('#jwt-error').textContent()).resolves.toBe('Invalid credentials');
    await check('sign-in-jwt-error');

    const token = await idp.sign('ada', { project: srv.bootstrap.projectId, role: 'admin' });
    await page.getByLabel('Identity provider token (JWT)').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await inPage("[sessionStorage.getItem('console.jwt'), sessionStorage.getItem('console.apiKey'), document.cookie]")).toEqual([token, null, '']);
    expect(page.url()).not.toContain(token);
    // A member acts in live mode: its API keys page lists the project's keys, read with the bearer token.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.locator('table.keys code', { hasText: srv.bootstrap.apiKey.slice(0, 12) }).first().waitFor();
    // The event stream with the bearer token too.
    await page.getByRole('link', { name: 'Servers' }).click();
    await page.getByText('Live: updates arrive from the event stream.').waitFor();
    await check('signed-in-jwt');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Project API key').waitFor();
    expect(await inPage('sessionStorage.length')).toBe(0);
    await page.getByLabel('Project API key').fill(srv.bootstrap.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  });

  it('creates a server from the catalog-fed form with its estimate, and lists servers live from the event stream, with filters, sort, paging and actions', async () => {
    const create = (name: string) => api.post('/v1/servers', { name, hostname: `${name}.example.com`, site: 'NYC', plan: 'c3-medium-x86', operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' });
    const older = await create('metal-a');
    expect(older.status).toBe(201);
    await eventually(() => api.get(`/v1/servers/${older.body.data.id}`), (r) => r.body.data.attributes.status === 'active', 60_000);

    await page.getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    await page.getByText('Live: updates arrive from the event stream.').waitFor();
    await inPage('window.__mark = 2');

    // Created from the catalog-fed form while the page is open: the estimate follows the choices, the
    // API's errors show next to their fields, and the server appears and turns active without a reload.
    await page.getByRole('button', { name: 'Create server' }).click();
    await expect(page.locator('#srv-name-error').textContent()).resolves.toMatch(/name/);
    await expect(page.locator('#srv-site-error').textContent()).resolves.toMatch(/site/);
    const estimate = async (plan: string) => {
      const r = await api.post('/v1/cost-estimates', { items: [{ resourceType: 'server', attributes: { name: 'x', hostname: 'x.example', site: 'NYC', plan, operating_system: 'ubuntu_22_04_x64_lts', billing: 'hourly' } }] });
      expect(r.status).toBe(200);
      return `$${(r.body.data.attributes.hourlyCents / 100).toFixed(2)}`;
    };
    const [small, large] = [await estimate('c3-medium-x86'), await estimate('m3-large-x86')];
    expect(small).not.toBe(large);
    await page.locator('#srv-name').fill('metal-b');
    await page.locator('#srv-hostname').fill('not a hostname');
    await page.locator('#srv-site').selectOption('NYC');
    await page.locator('#srv-plan').selectOption('m3-large-x86');
    await page.locator('#srv-operating_system').selectOption('ubuntu_22_04_x64_lts');
    await page.getByTestId('estimate').getByText(large, { exact: true }).waitFor();
    await page.locator('#srv-plan').selectOption('c3-medium-x86');
    await page.getByTestId('estimate').getByText(small, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create server' }).click();
    await expect(page.locator('#srv-hostname-error').textContent()).resolves.toMatch(/valid hostname/);
    expect(await page.locator('#srv-hostname').getAttribute('aria-invalid')).toBe('true');
    await check('servers-form-error');
    await page.locator('#srv-hostname').fill('metal-b.example.com');
    await page.getByRole('button', { name: 'Create server' }).click();
    await page.getByText('Server metal-b requested.').waitFor();
    const made = await eventually(() => api.get('/v1/servers?limit=100'), (r) => r.body.data.some((x: { attributes: { name: string } }) => x.attributes.name === 'metal-b'));
    const id = made.body.data.find((x: { attributes: { name: string } }) => x.attributes.name === 'metal-b').id as string;
    expect(made.body.data.find((x: { id: string }) => x.id === id).attributes.plan.slug).toBe('c3-medium-x86');
    const row = page.locator(`table.servers tr[data-id="${id}"]`);
    await row.locator('.status-active').waitFor({ timeout: 60_000 });
    expect(await inPage('window.__mark')).toBe(2);
    // Newest first by default; hostname Z–A puts metal-b first too, A–Z metal-a.
    expect(await page.locator('table.servers tbody tr td:first-child').allTextContents()).toEqual(['metal-b', 'metal-a']);
    await page.getByLabel('Sort').selectOption('hostname');
    await page.locator('table.servers tbody tr td:first-child').first().getByText('metal-a', { exact: true }).waitFor();
    await page.getByText('Page 1 of 1 (2 servers)').waitFor();
    await check('servers');

    // A console session on the server (bare metal: IPMI serial over LAN), its one-time URL shown.
    await row.getByRole('button', { name: 'Open console of metal-b' }).click();
    const link = page.getByRole('link', { name: 'Open the console' });
    await link.waitFor();
    expect(new URL((await link.getAttribute('href'))!).searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const sessions = await api.get(`/v1/console-sessions?resourceId=${id}`);
    expect(sessions.body.data.map((s: { attributes: { status: string; protocol: string } }) => [s.attributes.status, s.attributes.protocol])).toEqual([['open', 'ipmi-sol']]);

    // An action: power off, and the row follows the server to stopped, live.
    await row.getByRole('button', { name: 'Power off metal-b' }).click();
    await row.locator('.status-stopped').waitFor({ timeout: 60_000 });
    expect((await api.get(`/v1/servers/${id}`)).body.data.attributes.status).toBe('stopped');
    await row.getByRole('button', { name: 'Power on metal-b' }).waitFor();
    // A filter: stopped ones only.
    await page.getByLabel('Status').selectOption('stopped');
    await page.getByText('Page 1 of 1 (1 servers)').waitFor();
    expect(await page.locator('table.servers tbody tr').count()).toBe(1);
    // The API closed the console session when the server stopped: its link is gone from the page.
    await page.getByText(`Console session of ${id} closed: it is stopped.`).waitFor();
    expect(await page.getByRole('link', { name: 'Open the console' }).count()).toBe(0);
    await check('servers-stopped');
    expect(await inPage('window.__mark')).toBe(2);

    // The server's timeline: at its first event it was not yet active, at its last it is stopped.
    await row.getByRole('link', { name: 'metal-b' }).click();
    await page.getByRole('heading', { name: 'Server timeline', level: 1 }).waitFor();
    await page.locator('dl.asof .status-stopped').waitFor();
    await page.getByRole('slider').focus();
    await page.keyboard.press('Home');
    const history = await api.get(`/v1/events?subject=server-${id}&sort=time&limit=100`);
    const firstAt = history.body.data[0].attributes.time as string;
    await page.locator(`dl.asof[data-asof="${firstAt}"]`).waitFor();
    const earlier = (await api.get(`/v1/servers/${id}?asOf=${encodeURIComponent(firstAt)}`)).body.data.attributes.status as string;
    expect(earlier).not.toBe('stopped');
    await page.locator(`dl.asof .status-${earlier}`).waitFor();
    expect(await page.getByRole('link', { name: 'Servers', exact: true }).getAttribute('aria-current')).toBe('page');
    expect(await inPage('window.__mark')).toBe(2);
    await check('server-timeline');
  });

  it("counts the overview's resources by status exactly beyond the list's first page of 100", async () => {
    for (let i = 0; i < 101; i += 20)
      await Promise.all(Array.from({ length: Math.min(20, 101 - i) }, (_, j) => api.post(`/v1/storage/volumes?providerId=${providerId}`, { name: `bulk-${i + j}`, sizeGb: 10, region: 'us-east-1' }).then((r) => expect([r.status, r.body.errors?.[0]?.detail]).toEqual([202, undefined]))));
    await eventually(() => api.get('/v1/storage/volumes?limit=1&status=available'), (r) => r.body.meta.total === 101, 120_000, 500);
    // Away and back, so the overview loads anew whichever page the run was on.
    await page.getByRole('link', { name: 'Servers', exact: true }).click();
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Overview' }).click();
    const volumes = page.locator('[data-kind="Volumes"]');
    await volumes.locator('.count').getByText('101', { exact: true }).waitFor();
    await expect(volumes.locator('ul.statuses li').allTextContents()).resolves.toEqual(['available 101']);
    await check('overview-counts');
  });

  it('mints and revokes an organization key in a gateway session (the key shown once), and charts usage and spend per model', async () => {
    const origin = new URL(srv.url).origin;
    // CORS on the gateway: its management routes, for the console's origin only, never `*`, never inference.
    const preflight = { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };
    const allowed = await gw.http().send('OPTIONS', '/api/keys', undefined, preflight);
    expect([allowed.status, allowed.headers['access-control-allow-origin'], allowed.headers['access-control-allow-credentials']]).toEqual([204, origin, 'true']);
    const stranger = await gw.http().send('OPTIONS', '/api/keys', undefined, { ...preflight, origin: 'https://evil.example' });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    const inference = await gw.http().send('OPTIONS', '/v1/chat/completions', undefined, preflight);
    expect(inference.headers['access-control-allow-origin']).toBeUndefined();
    expect((await gw.http({ origin }).post('/v1/chat/completions', {})).headers['access-control-allow-origin']).toBeUndefined();
    // The console's CSP lets it call the gateway, and nothing else off its origin.
    expect(String((await srv.anonymous.get('/console')).headers['content-security-policy'])).toContain(`connect-src 'self' ${gw.url}`);

    await page.getByRole('link', { name: 'Gateway' }).click();
    await page.getByRole('heading', { name: 'Gateway', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Open a gateway session' }).click();
    await page.getByText('Gateway session open.').waitFor();
    // The session is the gateway's HttpOnly, Secure, SameSite=Strict cookie: sent by Chromium on the
    // console's calls to the gateway's port (one site), never readable by the page.
    const [cookie] = (await context.cookies(`${gw.url}/api/keys`)).filter((c) => c.name === 'gw_session');
    expect(cookie).toEqual(expect.objectContaining({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/api' }));
    expect(await inPage('document.cookie')).toBe('');
    await check('gateway-session');

    // The gateway's validation error, next to the field its param names.
    await page.getByLabel('Key name').fill('ci-gateway');
    await page.getByLabel('Requests per minute').fill('0');
    await page.getByRole('button', { name: 'Mint key' }).click();
    await expect(page.locator('#gw-rpm-error').textContent()).resolves.toMatch(/limits\.rpm/);
    await page.getByLabel('Requests per minute').fill('600');
    await page.getByRole('button', { name: 'Mint key' }).click();
    const key = (await page.locator('#new-gateway-key').textContent())!;
    expect(key).toMatch(/^gwk_[0-9a-f]{40}$/);
    const row = page.locator('table.gateway-keys tr', { hasText: 'ci-gateway' });
    await expect(row.textContent()).resolves.toContain('600 rpm');
    await check('gateway-key-minted');
    await page.getByRole('button', { name: 'Done, hide the key' }).click();
    expect(await page.locator('#new-gateway-key').count()).toBe(0);
    expect(await page.getByText(key).count()).toBe(0);

    // The key works; its usage reaches the charts.
    const complete = () => gw.http({ authorization: `Bearer ${key}` }).post('/v1/chat/completions', { model: 'sim-mini', messages: [{ role: 'user', content: 'hello from the console' }], max_tokens: 5 });
    for (let i = 0; i < 2; i++) expect((await complete()).status).toBe(200);
    const spend = await eventually(() => gw.http({ authorization: `Bearer ${key}` }).get('/api/spend'), (r) => r.body.data?.[0]?.attributes.requests === 2);
    const { inputTokens, outputTokens, costMicros } = spend.body.data[0].attributes;
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'Gateway' }).click();
    const tokensTable = page.locator('figure.chart', { hasText: 'Tokens per model' }).locator('table');
    await tokensTable.locator('tbody tr', { hasText: 'sim-mini' }).waitFor();
    expect(await tokensTable.locator('tbody tr td').allTextContents()).toEqual(['sim-mini', String(inputTokens), String(outputTokens)]);
    const spendTable = page.locator('figure.chart', { hasText: 'Spend per model (USD)' }).locator('table');
    expect(await spendTable.locator('tbody tr td').allTextContents()).toEqual(['sim-mini', `$${(costMicros / 1_000_000).toFixed(costMicros < 10_000 ? 6 : 2)}`]);
    expect(await page.locator('figure.chart canvas').count()).toBe(2);
    await page.locator('table.gateway-usage tbody tr').nth(1).waitFor();
    await check('gateway');

    await row.getByRole('button', { name: 'Revoke ci-gateway' }).click();
    await row.getByRole('button', { name: 'Confirm revoke ci-gateway' }).click();
    await row.getByText('Revoked').waitFor();
    expect((await complete()).status).toBe(401);
    await check('gateway-key-revoked');

    // Signing out of the console ends the gateway session too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Project API key').waitFor();
    await eventually(() => context.cookies(`${gw.url}/api/keys`), (cookies) => !cookies.some((c) => c.name === 'gw_session'));
    expect(pageErrors).toEqual([]);
  });
});
