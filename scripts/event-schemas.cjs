#!/usr/bin/env node
/**
 * The JSON Schema of every domain event's `data` (apps/api/src/events/event-schemas.generated.json:
 * `events`, event type → schema; `declaredResourceEvents`, the data of a declared job-backed resource's
 * events by kind), generated from the TypeScript event types with ts-json-schema-generator, so
 * the AsyncAPI document (GET /v1/asyncapi.json) gives each message its real payload. An event type is
 * any exported, non-generic type of libs/domain whose `type` is a string literal and that has `data`
 * (`export type TicketOpened = DomainEvent<'support.TicketOpened.v1', {…}>`).
 *
 * A few event types take their fields from a zod schema (`z.output<typeof schema>`), which the
 * generator cannot read; for those the `data` type is first written out structurally by the
 * TypeScript checker (in memory, in its own file's scope) and the generator reads that.
 *
 *   node scripts/event-schemas.cjs          regenerate (npm run asyncapi:schemas)
 *   node scripts/event-schemas.cjs --check  fail when the committed file is stale (scripts/test.sh)
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const tsj = require('ts-json-schema-generator');

const root = path.resolve(__dirname, '..');
const target = path.join(root, 'apps/api/src/events/event-schemas.generated.json');
const domain = path.join(root, 'libs/domain');
const CONFIG = { expose: 'none', skipTypeCheck: true, topRef: false, jsDoc: 'basic', additionalProperties: true, sortProps: true };

const rootNames = fs
  .readdirSync(domain, { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.d.ts'))
  .map((f) => path.join(domain, f))
  .sort();
const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
const options = { ...parsed.options, noEmit: true };

/** The exported event types of `program`'s domain files: { name, type, file, statement }. */
function eventTypes(program) {
  const checker = program.getTypeChecker();
  const found = [];
  for (const file of rootNames) {
    const sf = program.getSourceFile(file);
    for (const st of sf.statements) {
      if (!(ts.isTypeAliasDeclaration(st) || ts.isInterfaceDeclaration(st)) || st.typeParameters) continue;
      if (!st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const t = checker.getTypeAtLocation(st.name);
      if (t.isUnion()) continue;
      const typeProp = t.getProperty('type');
      const dataProp = t.getProperty('data');
      if (!typeProp || !dataProp) continue;
      const literal = checker.getTypeOfSymbolAtLocation(typeProp, st);
      if (!literal.isStringLiteral()) continue;
      found.push({ name: st.name.text, type: literal.value, file, statement: st, data: checker.getTypeOfSymbolAtLocation(dataProp, st), checker });
    }
  }
  return found;
}

const newGenerator = (program) => new tsj.SchemaGenerator(program, tsj.createParser(program, CONFIG), tsj.createFormatter(CONFIG), CONFIG);

/** The schema of each event's `data`, or the event left for the second pass. */
function generate(program, events) {
  const generator = newGenerator(program);
  const failed = [];
  for (const e of events) {
    try {
      const schema = generator.createSchema(e.name);
      e.schema = schema.properties.data;
    } catch (error) {
      failed.push(e);
    }
  }
  return failed;
}

const program = ts.createProgram(rootNames, options);
const events = eventTypes(program);
const failed = generate(program, events);

if (failed.length > 0) {
  // Write each failed event's data type out structurally, in its own file (so the names it uses still resolve).
  const rewritten = new Map();
  for (const e of failed) {
    const node = ts.isTypeAliasDeclaration(e.statement) && ts.isTypeReferenceNode(e.statement.type) ? e.statement.type.typeArguments?.[1] : undefined;
    if (!node) throw new Error(`${e.name} (${path.relative(root, e.file)}): cannot generate the schema of its data`);
    const text = e.checker.typeToString(e.data, undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias);
    const edits = rewritten.get(e.file) ?? [];
    edits.push({ start: node.getStart(), end: node.end, text });
    rewritten.set(e.file, edits);
  }
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const edits = rewritten.get(path.resolve(fileName));
    if (!edits) return getSourceFile(fileName, languageVersion, ...rest);
    let text = fs.readFileSync(fileName, 'utf8');
    for (const edit of [...edits].sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    return ts.createSourceFile(fileName, text, languageVersion, true);
  };
  const second = ts.createProgram(rootNames, options, host, program);
  const again = eventTypes(second).filter((e) => failed.some((f) => f.name === e.name && f.file === e.file));
  const still = generate(second, again);
  if (still.length > 0) throw new Error(`cannot generate the schema of ${still.map((e) => e.name).join(', ')}`);
  for (const e of again) failed.find((f) => f.name === e.name && f.file === e.file).schema = e.schema;
}

const byType = {};
for (const e of events) if (!(e.type in byType)) byType[e.type] = e.schema;
const out = { events: {}, declaredResourceEvents: {} };
for (const type of Object.keys(byType).sort()) out.events[type] = byType[type];
// The events of declared job-backed resources (libs/domain/shared/job-resource.ts) have no type of their
// own: their data by kind, `fields` left open (the AsyncAPI builder puts each resource's schema there).
const declared = newGenerator(program).createSchema('DeclaredResourceEventData');
for (const kind of Object.keys(declared.properties).sort()) out.declaredResourceEvents[kind] = declared.properties[kind];
const generated = `${JSON.stringify(out, null, 2)}\n`;

if (process.argv.includes('--check')) {
  const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (committed !== generated) {
    process.stderr.write('apps/api/src/events/event-schemas.generated.json is stale: run `npm run asyncapi:schemas` and commit it\n');
    process.exit(1);
  }
} else {
  fs.writeFileSync(target, generated);
  process.stdout.write(`wrote ${path.relative(root, target)} (${Object.keys(out.events).length} event types, ${Object.keys(out.declaredResourceEvents).length} kinds of declared resources' events)\n`);
}
