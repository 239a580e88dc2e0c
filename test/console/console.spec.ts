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
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { eventually } from '../support/wait';
import { startTestServer, type TestServer } from '../support/test-server';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(__dirname, '../../test-results/console');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

describe('web console (embedded profile, headless Chromium)', () => {
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let providerId: string;
  let receiver: WebhookReceiver;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // The bundle the API serves under /console (scripts/build-console.cjs, about a second).
    execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/build-console.cjs')], { stdio: 'pipe' });
    fs.mkdirSync(SHOTS, { recursive: true });
    receiver = await startWebhookReceiver();
    // The webhook receiver listens on loopback.
    srv = await startTestServer('embedded', { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    api = srv.as(srv.bootstrap.apiKey);
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
    await srv?.stop();
    await receiver?.close();
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
    const events = await api.get(`/v1/instances/${id}/events?limit=100`);
    const first = events.body.data.find((e: { attributes: { revision: number } }) => e.attributes.revision === 0);
    expect(asOf).toBe(first.attributes.createdAt);
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
    expect(await page.locator('#new-hook-secret').textContent()).toMatch(/^whsec_/);
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
});
