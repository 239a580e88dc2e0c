import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/** The analysts' CLI against the same engines as a running server-profile API. */
describe('cli: export the event history and show subscription status', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer('server');
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
