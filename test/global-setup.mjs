// Once per `jest` run, before any worker starts: an initialized PGlite cluster (initdb's output,
// nothing of ours in it) as a tarball, which every embedded event store the tests open starts from
// (PGLITE_TEMPLATE, libs/eventstore/src/sql/sql-client.ts). initdb costs PGlite 2.5 to 5 s and a full
// run opens a few hundred stores; loading the tarball costs well under one. Kept in the temp dir
// under PGlite's version, made under a private name and renamed into place (atomic beside a
// parallel run), so an upgrade of PGlite makes a new one.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';

export default async function globalSetup() {
  if (process.env.PGLITE_TEMPLATE) return;
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@electric-sql/pglite'); // <package>/dist/index.cjs
  const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8'));
  const file = path.join(os.tmpdir(), `cloud-api-pglite-${version}.tar`);
  if (!fs.existsSync(file)) {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = new PGlite();
    await db.waitReady;
    const tarball = await db.dumpDataDir('none');
    await db.close();
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, Buffer.from(await tarball.arrayBuffer()));
    fs.renameSync(partial, file);
  }
  process.env.PGLITE_TEMPLATE = file;
}
