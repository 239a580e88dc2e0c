#!/usr/bin/env node
/**
 * Bundles the web console (apps/console) with esbuild into dist/console: index.html plus
 * content-hashed assets/console-<hash>.{js,css} that the API serves under /console. The HTML has no
 * inline script or style (the CSP the API sets forbids them); the hash lets the assets be cached
 * for a year while index.html is revalidated on every load.
 *
 * Usage: node scripts/build-console.cjs [outDir]   (default dist/console)
 */
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const outDir = path.resolve(root, process.argv[2] ?? 'dist/console');

async function main() {
  const started = Date.now();
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { console: 'apps/console/src/main.tsx' },
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: path.join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`build-console: expected a .js and a .css output, got ${outputs.join(', ')}`);
  const html = fs
    .readFileSync(path.join(root, 'apps/console/index.html'), 'utf8')
    .replace('%CSS%', `/console/assets/${css}`)
    .replace('%JS%', `/console/assets/${js}`);
  fs.writeFileSync(path.join(outDir, 'index.html'), html);
  const sizes = Object.fromEntries(outputs.map((f) => [f, fs.statSync(path.join(outDir, 'assets', f)).size]));
  fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify({ js, css, sizes }, null, 2));
  process.stdout.write(`build-console: ${Object.entries(sizes).map(([f, n]) => `${f} ${(n / 1024).toFixed(1)} KiB`).join(', ')} in ${Date.now() - started} ms\n`);
}

main().catch((err) => {
  process.stderr.write(`build-console: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
