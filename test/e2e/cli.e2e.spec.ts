import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';

const run = promisify(execFile);
// Each case runs the CLI as a child process, which loads the whole application: minutes on a loaded machine.
jest.setTimeout(240_000);
const ROOT = path.resolve(__dirname, '../..');

/** The analysts' CLI against the same engines as a running server-profile API. */
describe('cli: export the event history and show subscription status', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer('server', { SIMULATOR_LATENCY: 'zero' });
    const api = srv.as(srv.bootstrap.apiKey);
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/api-keys', { name: `k${i}` })).status).toBe(201);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const cli = (...args: string[]) =>
    run(process.execPath, ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'apps/cli/src/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', ...srv.env, KAFKA_BROKERS: '' },
      maxBuffer: 64 * 1024 * 1024,
    });

  it('exports every event as NDJSON CloudEvents in position order, filtered and without key material', async () => {
    const all = await srv.platform.events.readAll({ fromPosition: 0, maxCount: 100000 });
    const { stdout } = await cli('export');
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(all.map((e) => e.id));
    expect(lines[0]).toMatchObject({ specversion: '1.0', type: all[0].type, subject: all[0].streamId, position: all[0].position });
    expect(stdout).not.toContain('keyHash');
    expect(stdout).not.toContain(srv.bootstrap.apiKey);

    const keys = await cli('export', '--type', 'identity.ApiKeyIssued', '--from', String(all[1].position));
    const issued = keys.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(issued.length).toBe(all.filter((e) => e.type === 'identity.ApiKeyIssued.v1' && e.position > all[1].position).length);
    expect(issued.every((e) => e.type === 'identity.ApiKeyIssued.v1')).toBe(true);
  });

  it('events export: the history as GET /v1/events shows it, in CSV or NDJSON, filtered by type, project, mode and time; no progress bar when piped', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    const listed = await api.get('/v1/events?type=identity.ApiKeyIssued.v1&sort=time&limit=100');
    const scope = ['--type', 'identity.ApiKeyIssued', '--project', srv.bootstrap.projectId, '--mode', 'test'];
    const csv = await cli('events', 'export', '--format', 'csv', ...scope);
    const [header, ...rows] = csv.stdout.trimEnd().split('\n');
    expect(header).toBe('position,time,type,subject,id,livemode,correlationid,data');
    expect(rows.map((r) => r.split(',')[4])).toEqual(listed.body.data.map((e: { id: string }) => e.id));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(csv.stderr).toBe('');
    const ndjson = await cli('events', 'export', ...scope, '--from', listed.body.data[1].attributes.time);
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(listed.body.data.slice(1).map((e: { id: string }) => e.id));
    expect((await cli('events', 'export', ...scope, '--to', '2001-01-01')).stdout).toBe('');
    const shown = await cli('events', 'export', ...scope, '--progress');
    expect(shown.stderr).toMatch(/export \[.*\] 100%/);
    await expect(cli('events', 'export', '--from', 'yesterday')).rejects.toMatchObject({ code: 2 });
  });

  it('events tail follows from --after and stops after --max; usage sums a project\'s compute per day as GET /v1/billing/usage; replay shows its progress', async () => {
    const bootstrap = srv.as(srv.bootstrap.apiKey);
    const live = srv.as((await bootstrap.post('/v1/api-keys', { name: 'analyst', role: 'owner', mode: 'live' })).body.data.attributes.key);
    const head = await srv.platform.events.headPosition();
    const tail = cli('events', 'tail', '--after', String(head), '--type', 'providers', '--max', '2');
    const made: number[] = [];
    let providerId = '';
    for (let i = 0; i < 2; i++) {
      providerId = (await live.post('/v1/providers', { name: 'provider_publiccloud', apiKey: 'sk-cli-secret' })).body.data.id;
      made.push((await srv.platform.events.readStream(`provider-${providerId}`))[0]!.position);
    }
    const tailed = (await tail).stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(tailed.map((e) => [e.position, e.type])).toEqual(made.map((p) => [p, 'providers.ProviderRegistered.v1']));
    expect(JSON.stringify(tailed)).not.toContain('sk-cli-secret');

    const created = await live.post('/v1/instances', { name: 'metered', providerId, region: 'us-east-1', instanceType: 'pc-t3-medium' });
    expect(created.status).toBe(202);
    await eventually(() => live.get(`/v1/jobs/${created.body.jobId}`), (r) => r.body.data.attributes.status === 'completed');
    const billed = await eventually(() => live.get('/v1/billing/usage'), (r) => r.body.meta.totalHours > 0);
    const usage = JSON.parse((await cli('usage', '--project', srv.bootstrap.projectId, '--format', 'json')).stdout);
    expect(usage.days.reduce((t: number, d: { hours: number }) => t + d.hours, 0)).toBe(billed.body.meta.totalHours);
    expect(usage.days.reduce((t: number, d: { costCents: number }) => t + d.costCents, 0)).toBe(billed.body.meta.totalCostCents);
    const today = new Date().toISOString().slice(0, 10);
    expect((await cli('usage', '--project', srv.bootstrap.projectId)).stdout).toMatch(new RegExp(`^date,hours,cost_cents,resources\n(.*\n)*${today},[1-9]\\d*,\\d+,1\n`));

    const replay = await cli('replay', 'api_keys', '--progress');
    expect(JSON.parse(replay.stdout)).toMatchObject({ projection: 'api_keys' });
    expect(replay.stderr).toMatch(/api_keys \[.*\] 100%/);
    for (const command of [['events', 'tail'], ['events', 'export'], ['usage'], ['replay']]) expect((await cli(...command, '--help')).stdout).toMatch(/^Usage: cli /);
  });

  it('reports the head and each subscription checkpoint', async () => {
    const { stdout } = await cli('status');
    const status = JSON.parse(stdout);
    expect(status.head).toBe(await srv.platform.events.headPosition());
    const keys = status.subscriptions.find((s: { name: string }) => s.name === 'projection:api_keys:v1');
    expect(keys.position).toBeGreaterThan(0);
    expect(keys.lagEvents).toBeGreaterThanOrEqual(0);
    await expect(cli('nonsense')).rejects.toMatchObject({ code: 2 });
  });
});
