#!/usr/bin/env node
/**
 * The typed TypeScript client's generated types (clients/typescript/src/generated/api.ts), made with
 * openapi-typescript from the OpenAPI document of the real routes (scripts/openapi-document.cjs).
 *
 *   node scripts/typescript-client.cjs          regenerate (npm run client:generate)
 *   node scripts/typescript-client.cjs --check  fail when the committed file is stale (scripts/test.sh)
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const target = path.join(root, 'clients/typescript/src/generated/api.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ts-client-'));
try {
  const doc = path.join(dir, 'openapi.json');
  const out = path.join(dir, 'api.ts');
  // A fixed server URL: the types do not depend on it, and the output must not depend on the environment.
  execFileSync(process.execPath, [path.join(root, 'scripts/openapi-document.cjs'), doc], { env: { ...process.env, PUBLIC_URL: 'https://localhost:8443' }, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(path.dirname(require.resolve('openapi-typescript/package.json')), 'bin/cli.js'), doc, '--output', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const generated = fs.readFileSync(out, 'utf8');
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (committed !== generated) {
      process.stderr.write('clients/typescript/src/generated/api.ts is stale: run `npm run client:generate` and commit it\n');
      process.exit(1);
    }
  } else {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, generated);
    process.stdout.write(`wrote ${path.relative(root, target)}\n`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
