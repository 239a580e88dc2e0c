/**
 * ReadStore on the official `mongodb` driver. Stays inside the subset FerretDB v1.24 implements:
 * CRUD, ordered bulkWrite, find with sort/skip/limit, countDocuments, createIndex (incl. unique).
 * No collation, $expr, transactions, change streams or non-trivial aggregation.
 *
 * Documents are stored with `_id` = doc.id and without the `id` field; reads map `_id` back to `id`.
 */
import { MongoClient, type AnyBulkWriteOperation, type Collection, type Db, type Document, type MongoClientOptions } from 'mongodb';
import { DuplicateKeyError, InvalidQueryError } from './errors';
import { indexName, normalizeQuery, seekId, seekPast, validateDoc, validateFilter, validateIndexSpec } from './filter';
import { META_COLLECTION } from './filter';
import type { Filter, FindQuery, FindResult, FindStats, IndexSpec, ReadCollection, ReadDoc, ReadStore, SortKey, WriteOp } from './read-store.port';

type Stored = Document & { _id: string };

function toMongoPath(field: string): string {
  return field === 'id' ? '_id' : field;
}

/** Port filter -> MongoDB filter (validated; `id` becomes `_id`). */
export function toMongoFilter(filter: Filter | undefined): Document {
  const f = validateFilter(filter);
  const out: Document = {};
  for (const [path, cond] of Object.entries(f)) out[toMongoPath(path)] = cond;
  return out;
}

/**
 * Documents after `values` in the order of `sort` (id last): `k1 > v1 OR (k1 = v1 AND k2 > v2) OR …`
 * (`<` for descending keys). MongoDB turns each branch into bounds on the index that serves the
 * sort, so the walk starts at the key instead of passing over the pages before it.
 */
export function seekFilter(sort: SortKey[], values: ReadonlyArray<string | number | boolean>): Document {
  const branches: Document[] = sort.map((k, i) => {
    const branch: Document = {};
    for (let j = 0; j < i; j++) branch[toMongoPath(sort[j]!.field)] = values[j];
    branch[toMongoPath(k.field)] = { [k.direction === 1 ? '$gt' : '$lt']: values[i] };
    return branch;
  });
  return branches.length === 1 ? branches[0]! : { $or: branches };
}

/**
 * `filter` AND `seek`, at the top level where no field (or `$or`) of the two meets: FerretDB v1
 * pushes only top-level equalities down to PostgreSQL, so the query's `projectId` stays an indexed
 * lookup instead of a scan of the collection; `$and` only where they share a field.
 */
export function withSeek(filter: Document, seek: Document): Document {
  return Object.keys(seek).some((k) => k in filter) ? { $and: [filter, seek] } : { ...filter, ...seek };
}

export function toMongoSort(sort: SortKey[]): [string, 1 | -1][] {
  return sort.map((k) => [toMongoPath(k.field), k.direction]);
}

function toStored(doc: ReadDoc): Stored {
  const { id, ...rest } = doc;
  return { _id: id, ...rest };
}

function fromStored<T extends ReadDoc>(stored: Document): T {
  const { _id, ...rest } = stored;
  return { id: _id, ...rest } as T;
}

function isDuplicateKey(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; writeErrors?: unknown; errorResponse?: { code?: unknown } };
  if (e.code === 11000 || e.code === 11001 || e.errorResponse?.code === 11000) return true;
  if (Array.isArray(e.writeErrors) && e.writeErrors.some((w: { code?: unknown }) => w?.code === 11000)) return true;
  // FerretDB v1.24 reports a unique index build over existing duplicates as InternalError (code 1)
  // carrying PostgreSQL's unique_violation SQLSTATE instead of E11000.
  return typeof e.message === 'string' && (e.message.includes('E11000') || e.message.includes('SQLSTATE 23505'));
}

/** Maps E11000 (from any driver call) to DuplicateKeyError; rethrows everything else. */
function mapError(collection: string, err: unknown): never {
  if (isDuplicateKey(err)) {
    const msg = err instanceof Error ? err.message : String(err);
    const idx = /index: (\S+)/.exec(msg)?.[1];
    throw new DuplicateKeyError(collection, msg, idx, { cause: err });
  }
  throw err;
}

const UPDATE_CHUNK = 16;
const INSERT_CHUNK = 1000;

/**
 * Runs at most `width` writes at a time (FIFO); shared by every collection of a store. FerretDB v1
 * holds a backend connection per statement of a command until the command ends, so the number of
 * statements in flight (width x UPDATE_CHUNK) must stay well below its pool (200 in scripts/engines.sh).
 */
export class WriteGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly width = 4) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.width) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** How a store looks documents up by id: `$in` on MongoDB; one indexed findOne each on FerretDB v1. */
export interface LookupStrategy {
  /** FerretDB v1 cannot push `$in` down and scans the whole collection in Go for it. */
  perIdLookups: boolean;
  concurrency: number;
  /**
   * FerretDB v1 uses no index for a sort, a range or a limit: only equality reaches PostgreSQL, served
   * by the GIN twin scripts/engines.sh gives each index's first field. A further non-unique index
   * led by the same field would only slow every write, so only the first one per leading field is
   * built (unique indexes always are). MongoDB builds every declared index (the list shapes'
   * covering indexes, see list-shapes.ts).
   */
  oneIndexPerLeadingField?: boolean;
}

export class MongoReadCollection<T extends ReadDoc = ReadDoc> implements ReadCollection<T> {
  constructor(
    private readonly db: Db | (() => Db),
    readonly name: string,
    private readonly writeGate: WriteGate = new WriteGate(),
    private readonly lookups: LookupStrategy = { perIdLookups: false, concurrency: 1 },
    /** Shared by every collection of a store (MongoReadStore.stats). */
    private readonly stats: FindStats = { seeks: 0, skipped: 0 },
  ) {}

  /** On the store's current client (a stuck one is replaced, see MongoReadStore). */
  private get coll(): Collection<Stored> {
    return (typeof this.db === 'function' ? this.db() : this.db).collection<Stored>(this.name);
  }

  async get(id: string): Promise<T | null> {
    const d = await this.coll.findOne({ _id: id });
    return d ? fromStored<T>(d) : null;
  }

  async getMany(ids: string[]): Promise<T[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const found = this.lookups.perIdLookups ? await this.findEach(unique) : await this.coll.find({ _id: { $in: unique } }).toArray();
    const byId = new Map(found.map((d) => [d._id, d]));
    const out: T[] = [];
    for (const id of unique) {
      const d = byId.get(id);
      if (d) out.push(fromStored<T>(d));
    }
    return out;
  }

  private async findEach(ids: string[]): Promise<Stored[]> {
    const out: Stored[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const d = await this.coll.findOne({ _id: ids[next++]! });
        if (d) out.push(d);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.lookups.concurrency, ids.length) }, worker));
    return out;
  }

  async findOne(filter: Filter): Promise<T | null> {
    const d = await this.coll.findOne(toMongoFilter(filter), { sort: [['_id', 1]] });
    return d ? fromStored<T>(d) : null;
  }

  async find(query: FindQuery): Promise<FindResult<T>> {
    let q = normalizeQuery(query);
    // Where the page starts in the whole match (a seek's `skip` is 0): the uncounted `total` is offset + items.
    const offset = q.skip;
    const seek = seekId(query);
    if (seek) q = seekPast(q, await this.get(seek.id), seek.direction);
    // A `beforeId` seek reads the page in the reversed order: it is answered in the query's.
    const inOrder = (docs: Stored[]) => (q.reversed ? docs.reverse() : docs).map((d) => fromStored<T>(d));
    const matching = toMongoFilter(q.filter);
    const filter = q.after ? withSeek(matching, seekFilter(q.sort, q.after)) : matching;
    if (q.after) this.stats.seeks++;
    this.stats.skipped += q.skip;
    if (query.withTotal === false) {
      if (q.limit === 0) return { items: [], total: offset };
      let cursor = this.coll.find(filter, { sort: toMongoSort(q.sort) });
      if (q.skip > 0) cursor = cursor.skip(q.skip);
      if (q.limit !== undefined) cursor = cursor.limit(q.limit);
      const docs = await cursor.toArray();
      return { items: inOrder(docs), total: offset + docs.length };
    }
    // `total` counts the whole match: a seek (afterId) passes over the pages before it, they still count.
    const countP = this.coll.countDocuments(matching);
    if (q.limit === 0) return { items: [], total: await countP };
    let cursor = this.coll.find(filter, { sort: toMongoSort(q.sort) });
    if (q.skip > 0) cursor = cursor.skip(q.skip);
    if (q.limit !== undefined) cursor = cursor.limit(q.limit);
    const [docs, total] = await Promise.all([cursor.toArray(), countP]);
    return { items: inOrder(docs), total };
  }

  async write(ops: WriteOp<T>[]): Promise<void> {
    if (ops.length === 0) return;
    // Each id appears at most once in a call from a projector, but keep the caller's order for
    // anything else by only batching runs of the same kind.
    const inserts: Stored[] = [];
    const updates: AnyBulkWriteOperation<Stored>[] = [];
    for (const op of ops) {
      if (op.kind === 'put') {
        validateDoc(op.doc);
        if (op.isNew) inserts.push(toStored(op.doc));
        else updates.push({ replaceOne: { filter: { _id: op.doc.id }, replacement: toStored(op.doc), upsert: true } });
      } else if (op.kind === 'delete') {
        updates.push({ deleteOne: { filter: { _id: op.id } } });
      } else {
        throw new Error(`unknown write op ${JSON.stringify((op as { kind?: unknown }).kind)}`);
      }
    }
    try {
      await this.insertNew(inserts);
      // FerretDB v1 holds one backend connection per statement of a command until the command ends,
      // so large or concurrent update batches exhaust its pool and deadlock it: small chunks, and one
      // multi-statement write at a time per store (the write gate).
      for (let i = 0; i < updates.length; i += UPDATE_CHUNK) {
        await this.writeGate.run(() => this.coll.bulkWrite(updates.slice(i, i + UPDATE_CHUNK), { ordered: true }));
      }
    } catch (err) {
      mapError(this.name, err);
    }
  }

  /** Inserts documents believed new; any that already exist (a wrong hint) are replaced instead. */
  private async insertNew(docs: Stored[]): Promise<void> {
    for (let i = 0; i < docs.length; i += INSERT_CHUNK) {
      const chunk = docs.slice(i, i + INSERT_CHUNK);
      try {
        await this.writeGate.run(() => this.coll.insertMany(chunk, { ordered: false }));
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Retry exactly the documents that failed as replacements: a document that already existed
        // (a wrong hint) is replaced, and a real unique-index violation surfaces again from replaceOne.
        const writeErrors = (err as { writeErrors?: Array<{ index?: number }> }).writeErrors;
        const failed = Array.isArray(writeErrors) && writeErrors.every((w) => typeof w.index === 'number') ? writeErrors.map((w) => chunk[w.index!]) : chunk;
        for (let j = 0; j < failed.length; j += UPDATE_CHUNK) {
          const ops = failed.slice(j, j + UPDATE_CHUNK).map((d) => ({ replaceOne: { filter: { _id: d._id }, replacement: d, upsert: true } }));
          await this.writeGate.run(() => this.coll.bulkWrite(ops, { ordered: true }));
        }
      }
    }
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    indexes.forEach(validateIndexSpec);
    const leading = new Set<string>();
    if (this.lookups.oneIndexPerLeadingField) {
      const existing = await this.coll.indexes().catch((err: { code?: unknown }) => {
        if (err?.code === 26) return []; // no collection yet
        throw err;
      });
      for (const i of existing) if (i.name !== '_id_') leading.add(Object.keys(i.key)[0]!);
    }
    for (const spec of indexes) {
      if (spec.fields.length === 1 && spec.fields[0]!.field === 'id') continue; // _id is always indexed
      const first = toMongoPath(spec.fields[0]!.field);
      if (this.lookups.oneIndexPerLeadingField && !spec.unique && leading.has(first)) continue;
      leading.add(first);
      const key: Document = {};
      for (const f of spec.fields) key[toMongoPath(f.field)] = f.direction;
      try {
        await this.coll.createIndex(key, { name: indexName(spec.fields), ...(spec.unique ? { unique: true } : {}) });
      } catch (err) {
        mapError(this.name, err);
      }
    }
  }

  async drop(): Promise<void> {
    try {
      await this.coll.drop();
    } catch (err) {
      // "ns not found" (code 26): dropping a collection that does not exist is fine
      if ((err as { code?: unknown })?.code !== 26) throw err;
    }
  }
}

/**
 * A heartbeat of the driver's monitor takes at most connectTimeoutMS to connect plus connectTimeoutMS
 * for its hello, every heartbeatFrequencyMS: a monitor silent for longer than STUCK_MS is stuck. That
 * happens (mongodb 6.22, poll mode, FerretDB): when the socket closes while a hello is being issued
 * (between `checkServer` seeing the connection open and the reply reader attaching), the close finds
 * no reader to fail and the destroyed socket never times out, so the check never settles, the
 * monitor never checks again and every operation fails server selection with the old error, while
 * a new client reaches the same server at once.
 */
const STUCK_MS = 15_000;
/** After a replacement failed (the server is really down), the next try. */
const RETRY_MS = 3_000;
/**
 * How long a replaced client lives on for the operations it has started: closing it interrupts them
 * (MongoClientClosedError, a 503), and a monitor silent only because the event loop was starved (a
 * loaded machine: the soak saw it at start at load 20) leaves a client whose operations still finish.
 */
const RETIRE_MS = 10_000;

export class MongoReadStore implements ReadStore {
  private readonly writeGate = new WriteGate();
  /** Seeks taken and documents skipped by the finds of every collection (tests prove a cursor page skips nothing). */
  readonly stats: FindStats = { seeks: 0, skipped: 0 };
  private lookups: LookupStrategy = { perIdLookups: false, concurrency: 1 };
  readonly kind = 'mongodb' as const;
  /** `ferretdb v1.24.2` or `mongodb 7.0.x`, from buildInfo at connect. */
  server = 'unknown';
  private client!: MongoClient;
  private current!: Db;
  /** The last heartbeat event of the client's monitor (started, succeeded or failed). */
  private lastHeartbeat = 0;
  private replacing: Promise<void> | null = null;
  private readonly watchdog: NodeJS.Timeout;
  private closed = false;
  /** Replaced clients, closed after RETIRE_MS (or with the store). */
  private readonly retiring = new Map<MongoClient, NodeJS.Timeout>();
  /** Clients replaced because they were stuck (observable by tests and logs). */
  replacements = 0;

  private constructor(
    client: MongoClient,
    private readonly dbName: string | undefined,
    private readonly open: () => MongoClient,
  ) {
    this.adopt(client);
    this.watchdog = setInterval(() => void this.checkStuck(), 1000);
    this.watchdog.unref();
  }

  get db(): Db {
    return this.current;
  }

  private get meta(): Collection<{ _id: string; value: unknown }> {
    return this.current.collection(META_COLLECTION);
  }

  private adopt(client: MongoClient): void {
    this.client = client;
    this.current = client.db(this.dbName);
    this.lastHeartbeat = Date.now();
    const beat = () => {
      if (this.client === client) this.lastHeartbeat = Date.now();
    };
    client.on('serverHeartbeatStarted', beat);
    client.on('serverHeartbeatFailed', beat);
    client.on('serverHeartbeatSucceeded', beat);
  }

  /**
   * A client whose monitor has said nothing for STUCK_MS is replaced by a fresh one once that one
   * pings; while the server is really down the fresh one fails too, and the old client is kept and
   * the replacement tried again after RETRY_MS.
   */
  private checkStuck(): void {
    if (this.closed || this.replacing || Date.now() - this.lastHeartbeat < STUCK_MS) return;
    this.replacing = (async () => {
      const fresh = this.open();
      try {
        await fresh.connect();
        await fresh.db(this.dbName).command({ ping: 1 });
      } catch {
        await fresh.close(true).catch(() => undefined);
        this.lastHeartbeat = Date.now() - STUCK_MS + RETRY_MS;
        return;
      }
      if (this.closed) return void (await fresh.close(true).catch(() => undefined));
      const stuck = this.client;
      this.adopt(fresh);
      this.replacements++;
      const retire = () => {
        this.retiring.delete(stuck);
        return stuck.close(true).catch(() => undefined);
      };
      this.retiring.set(stuck, setTimeout(() => void retire(), RETIRE_MS).unref());
    })().finally(() => (this.replacing = null));
  }

  /**
   * Connects and pings. `dbName` defaults to the database in the URL (e.g. `/cloud`).
   * Throws an error naming the URL (credentials masked) when the server cannot be reached.
   */
  static async connect(url: string, dbName?: string, options: MongoClientOptions = {}): Promise<MongoReadStore> {
    const open = () => new MongoClient(url, { ignoreUndefined: true, serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, serverMonitoringMode: 'poll', heartbeatFrequencyMS: 2000, ...options });
    const client = open();
    try {
      await client.connect();
      const store = new MongoReadStore(client, dbName, open);
      try {
        await store.ping();
        const info = await client.db('admin').command({ buildInfo: 1 }).catch(() => ({}) as Document);
        store.server = typeof info.ferretdbVersion === 'string' ? `ferretdb ${info.ferretdbVersion}` : `mongodb ${String(info.version ?? 'unknown')}`;
        if (store.server.startsWith('ferretdb v1')) store.lookups = { perIdLookups: true, concurrency: 8, oneIndexPerLeadingField: true };
      } catch (err) {
        store.closed = true;
        clearInterval(store.watchdog);
        throw err;
      }
      return store;
    } catch (err) {
      await client.close().catch(() => undefined);
      const shown = url.replace(/\/\/[^@/]*@/, '//***@');
      throw new Error(`MongoReadStore: cannot reach MongoDB at ${shown}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  collection<T extends ReadDoc = ReadDoc>(physicalName: string): ReadCollection<T> {
    if (physicalName === META_COLLECTION) throw new InvalidQueryError(`collection name ${META_COLLECTION} is reserved for meta data`);
    return new MongoReadCollection<T>(() => this.current, physicalName, this.writeGate, this.lookups, this.stats);
  }

  async getMeta<T = unknown>(key: string): Promise<T | null> {
    const d = await this.meta.findOne({ _id: key });
    return d ? ((d.value ?? null) as T) : null;
  }

  async setMeta<T = unknown>(key: string, value: T): Promise<void> {
    await this.meta.replaceOne({ _id: key }, { value: value === undefined ? null : value }, { upsert: true });
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  /** Drops the whole database (tests). */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    await this.replacing?.catch(() => undefined);
    for (const [client, timer] of [...this.retiring]) {
      clearTimeout(timer);
      this.retiring.delete(client);
      await client.close(true).catch(() => undefined);
    }
    await this.client.close();
  }
}
