/**
 * Group "console" (in the default run; BENCH_ONLY=console): the web console's bundle size (what
 * scripts/build-console.cjs writes, raw and gzipped) and the overview's first paint in Debian's
 * headless chromium (CHROMIUM_PATH, default /usr/bin/chromium), against the real API on the
 * embedded profile. BENCH_CONSOLE_LOADS page loads (default 10), each in a fresh browser context
 * (nothing cached), signed in beforehand (the key put in sessionStorage before the page runs);
 * the medians of chromium's first-contentful-paint (performance API, `paint` entries) and of the
 * time until the overview shows its resource counts and chart (`performance.now()` when they appear).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { chromium } from 'playwright-core';
import { startServer, type RunningServer } from '../apps/api/src/server';
import { loadConfig } from '../libs/config/src/config';
import { REDACT_PATHS } from '../libs/http/src/logging';
import { log, row, type Row } from './lib';

export interface ConsoleBenchOptions {
  loads: number;
}

const HIGH = String(10_000_000);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function benchConsole(opts: ConsoleBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  // From dist/bench (compiled) or bench/ (ts-node): the repository is where package.json is.
  let root = __dirname;
  while (!fs.existsSync(path.join(root, 'package.json'))) root = path.dirname(root);
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-console.cjs')], { stdio: 'pipe' });
  const outDir = path.join(root, 'dist', 'console');
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as { js: string; css: string };
  const size = (f: string) => {
    const b = fs.readFileSync(path.join(outDir, 'assets', f));
    return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
  };
  const js = size(manifest.js);
  const css = size(manifest.css);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloud-api-bench-console-'));
  const config = loadConfig(
    {},
    { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', EVENT_STORE: 'pglite', READ_STORE: 'memory', RATE_LIMIT_PROJECT_PER_MIN: HIGH, RATE_LIMIT_KEY_PER_MIN: HIGH, RATE_LIMIT_IP_PER_MIN: HIGH, SIMULATOR_LATENCY: 'zero' },
  );
  const logger = pino({ level: 'warn', redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } });
  let server: RunningServer | undefined;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const fcp: number[] = [];
  const ready: number[] = [];
  try {
    server = await startServer(config, logger);
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    for (let i = 0; i < opts.loads; i++) {
      const context = await browser.newContext({ baseURL: server.url, ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
      await context.addInitScript({ content: `sessionStorage.setItem('console.apiKey', ${JSON.stringify(boot.apiKey)});` });
      const page = await context.newPage();
      await page.goto('/console#/');
      await page.locator('.card .count').first().waitFor();
      await page.locator('.chart canvas').waitFor();
      ready.push((await page.evaluate('performance.now()')) as number);
      const paint = (await page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null")) as number | null;
      if (paint !== null) fcp.push(paint);
      await context.close();
    }
  } finally {
    await browser.close().catch(() => undefined);
    await server?.close().catch((err) => log(`server close failed: ${String(err)}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const details = { bundle: { js: { file: manifest.js, ...js }, css: { file: manifest.css, ...css } }, loads: opts.loads, firstContentfulPaintMs: fcp, overviewReadyMs: ready };
  log(`console: js ${(js.raw / 1024).toFixed(1)} KiB (${(js.gzip / 1024).toFixed(1)} KiB gzip), css ${(css.raw / 1024).toFixed(1)} KiB; FCP median ${median(fcp).toFixed(0)} ms, overview ready median ${median(ready).toFixed(0)} ms over ${opts.loads} loads`);
  const none = { baselineName: '-', baseline: null };
  return {
    rows: [
      row({ item: 'ui1', metric: 'console bundle: JS (minified)', unit: 'KiB', value: js.raw / 1024, ...none, target: null, targetKind: null }),
      row({ item: 'ui1', metric: 'console bundle: JS + CSS gzipped', unit: 'KiB', value: (js.gzip + css.gzip) / 1024, ...none, target: 100, targetKind: 'atMost' }),
      row({ item: 'ui2', metric: `overview first contentful paint, median of ${fcp.length}`, unit: 'ms', value: median(fcp), ...none, target: 1000, targetKind: 'atMost' }),
      row({ item: 'ui2', metric: `overview ready (counts + chart), median of ${ready.length}`, unit: 'ms', value: median(ready), ...none, target: 2000, targetKind: 'atMost' }),
    ],
    details,
  };
}
