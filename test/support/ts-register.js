// Lets a child process run the TypeScript sources directly (crash tests spawn the real server, the
// CLI suite runs the CLI). Transpiled output is cached on disk by the source's hash: a child that
// loads the whole application otherwise spends most of its start transpiling the same files again.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');

const cacheDir = path.join(os.tmpdir(), `ts-register-${ts.version}`);
fs.mkdirSync(cacheDir, { recursive: true });

require.extensions['.ts'] = function compile(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = path.join(cacheDir, `${crypto.createHash('sha1').update(filename).update('\0').update(source).digest('hex')}.js`);
  let outputText;
  try {
    outputText = fs.readFileSync(cached, 'utf8');
  } catch {
    ({ outputText } = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: true, esModuleInterop: true, inlineSourceMap: true },
    }));
    // Written whole under a temporary name, then renamed: a concurrent reader never sees half a file.
    const tmp = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, outputText);
    fs.renameSync(tmp, cached);
  }
  module._compile(outputText, filename);
};
