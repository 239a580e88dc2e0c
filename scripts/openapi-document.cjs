#!/usr/bin/env node
/**
 * Writes the OpenAPI document of the real routes to a file (default: stdout) without starting the
 * service or any engine: the route modules are loaded (their `@ApiRoute` declarations fill the
 * registry) through a transpile-only TypeScript hook, as jest loads them. Used by scripts/test.sh
 * to lint the document (`redocly lint`).
 *
 *   node scripts/openapi-document.cjs [out.json]
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  isolatedModules: true,
  resolveJsonModule: true,
};
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};

require(path.join(root, 'apps/api/src/routes.ts'));
const { buildOpenApiDocument } = require(path.join(root, 'libs/http/src/openapi.ts'));
const { loadConfig } = require(path.join(root, 'libs/config/src/config.ts'));
// Only PUBLIC_URL (validated as at start) matters here; other settings of the environment are not read.
const config = loadConfig({}, process.env.PUBLIC_URL ? { PUBLIC_URL: process.env.PUBLIC_URL } : {});
const doc = buildOpenApiDocument({ serverUrl: config.publicUrl ?? `https://${config.host}:${config.port}` });
const text = `${JSON.stringify(doc, null, 2)}\n`;
if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
else process.stdout.write(text);
