import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { unusedPort } from '../support/ports';
import { spawnServer, waitUp, type SpawnedServer } from '../support/spawn-server';

const ROOT = path.resolve(__dirname, '../..');

/** The README's section on the gateway: from its heading to the next one. */
function gatewaySection(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Inference gateway\n');
  if (start < 0) throw new Error('README.md has no "## Inference gateway" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of a language in `text`, in order. */
const blocks = (text: string, lang: string) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

/** The JSON values printed one after another in `text` (no separator between them). */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if ((c === '}' || c === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}

/**
 * The README's gateway examples work as written (issue 23): its curl block (a session from the
 * bootstrap key, a minted key, a chat completion) and its `openai` SDK example, run as the README says
 * (`NODE_EXTRA_CA_CERTS=.data/tls/cert.pem node hello.mjs`), from a directory whose `.data` is the data
 * directory of a server started as `npm start` starts it (apps/launcher/src/main.ts, embedded defaults).
 * The one change made to the text: the ports, 8443 and 8444 in the README, are ones this test may take.
 */
describe('README gateway examples against the launcher (embedded profile)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-readme-'));
  const apiPort = unusedPort();
  const gatewayPort = unusedPort();
  let server: SpawnedServer;

  beforeAll(async () => {
    // The reader's project has the `openai` package installed.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const embedded = { PROFILE: '', EVENT_STORE: '', READ_STORE: '', PG_URL: '', PG_SCHEMA: '', MONGO_URL: '', REDIS_URL: '', KAFKA_BROKERS: '', ESDB_URL: '', HOST: '', LOG_LEVEL: 'warn' };
    server = spawnServer({ ...embedded, DATA_DIR: path.join(dir, '.data'), GATEWAY_PORT: String(gatewayPort) }, apiPort, 'apps/launcher/src/main.ts');
    await waitUp(`https://127.0.0.1:${gatewayPort}`, server, 240000, '/api/models');
  }, 300000);
  afterAll(async () => {
    if (server && server.proc.exitCode === null) {
      const exited = new Promise((r) => server.proc.once('exit', r));
      server.proc.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the curl block, then the openai example the way the README says to run it', async () => {
    const section = gatewaySection();
    const [curl] = blocks(section, 'bash');
    const [sdk] = blocks(section, 'js');
    const runAs = /run as `([^`]+)`/.exec(section)?.[1];
    expect([typeof curl, typeof sdk, typeof runAs]).toEqual(['string', 'string', 'string']);
    expect(sdk).toContain("from 'openai'");
    const script = runAs!.split(' ').pop()!;
    const ports = (text: string) => text.replace(/:8444\b/g, `:${gatewayPort}`).replace(/:8443\b/g, `:${apiPort}`);
    // One shell, as a reader types them: the curl block exports GATEWAY_KEY, which the SDK example reads.
    const shell = `set -e\n${ports(curl)}\necho\necho '--- sdk'\n${runAs}\n`;
    fs.writeFileSync(path.join(dir, 'example.sh'), shell);
    fs.writeFileSync(path.join(dir, script), ports(sdk));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['NODE_OPTIONS', 'GATEWAY_KEY', 'NODE_EXTRA_CA_CERTS', 'KEY'].includes(k)));
    const { stdout, stderr } = await promisify(execFile)('bash', ['example.sh'], { cwd: dir, env, timeout: 120000 }).catch((err: { stdout: string; stderr: string; code: number }) => {
      throw new Error(`the README's example failed (${err.code}):\n${err.stdout}\n${err.stderr}`);
    });
    const [curlOut, sdkOut] = stdout.split('\n--- sdk\n');
    // Each curl prints its answer (the session's, then the completion's), one after the other.
    const completion = jsonValues(curlOut).pop() as { choices: { message: { content: string } }[] };
    expect(completion).toMatchObject({ object: 'chat.completion', model: 'sim-mini', choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: expect.any(String) }] });
    expect(completion.choices[0].message.content.length).toBeGreaterThan(0);
    // The SDK example prints the answer's text: the simulator is deterministic, so the same words.
    expect(sdkOut.trim()).toBe(completion.choices[0].message.content.trim());
    expect(stderr).toBe('');
  }, 180000);
});
