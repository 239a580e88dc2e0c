// Lets a child process run the TypeScript sources directly (crash tests spawn the real server).
const ts = require('typescript');
const fs = require('node:fs');

require.extensions['.ts'] = function compile(module, filename) {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, emitDecoratorMetadata: true, esModuleInterop: true, inlineSourceMap: true },
  });
  module._compile(outputText, filename);
};
