import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedRevision,
  IdempotencyReservation,
  InstantSnapshot,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  StreamAppend,
  StreamHead,
  StreamSnapshot,
  Subscription,
} from '../event-store.port';
import { IdempotencyKeyCommittedError, WrongExpectedRevisionError } from '../event-store.port';
import { CatchUpSubscription } from '../catch-up-subscription';
import type { SqlClient } from './sql-client';
import { isConnectionFailure, PgliteSqlClient, PgSqlClient, sqlLiteral } from './sql-client';

interface PendingPart {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
}

/** One append (one part) or one multi-stream append (several, all written or none). */
interface PendingAppend {
  parts: PendingPart[];
  /** Events of all parts. */
  count: number;
  idempotency?: IdempotencyReservation;
  resolve: (r: AppendResult[]) => void;
  reject: (e: unknown) => void;
}

/** recorded_at formatted by the server: no Date round trip per row on the read path. */
const EVENT_COLUMNS = `position, event_id::text AS event_id, stream_id, revision, type, data, metadata,
  to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at`;

/** A stream name's id part, as `streamKeyOf` (projections/event-index) cuts it: after the first '-'. */
const STREAM_KEY = `substr(stream_id, strpos(stream_id, '-') + 1)`;

interface EventRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date | string;
}

export interface SqlEventStoreOptions {
  /** Schema holding the tables; tests use one per suite. */
  schema?: string;
  /** Idle poll interval of subscriptions (they are also woken by appends and NOTIFY). */
  pollIntervalMs?: number;
  /** Upper bound of events written in one group-commit transaction. */
  maxEventsPerCommit?: number;
  /** PGlite only: the initialized cluster a new store starts from (PgliteSqlClient.open). */
  template?: string;
}


/**
 * PostgreSQL (and PGlite) event store.
 *
 * Gap-free positions: every append transaction takes the row lock on the single `head` row before
 * it allocates positions, so commits become visible strictly in position order and a reader that
 * sees position p has already been able to see everything below p (no sequence-gap skips).
 * To keep throughput, concurrent appends of this process are group-committed: while one transaction
 * commits, new appends queue up and go together in the next one, each with its own revision check.
 */
export class SqlEventStore implements EventStore {
  readonly kind: string;
  private readonly schema: string;
  private readonly queue: PendingAppend[] = [];
  private flushing = false;
  /** A commit of this process is in flight (from its transaction to its rows in the tail). */
  private committing = false;
  /** The highest head a NOTIFY told of while `committing`: taken once the commit is in the tail. */
  private notifiedHead = 0;
  private readonly subscriptions = new Set<CatchUpSubscription>();
  private unlisten: (() => Promise<void>) | null = null;
  private readonly channel: string;
  private readonly maxEventsPerCommit: number;
  /** Append latency observer (metrics); set by the application. */
  onAppendCommitted?: (events: number, ms: number) => void;

  private constructor(
    private readonly sql: SqlClient,
    private readonly options: SqlEventStoreOptions,
  ) {
    this.schema = options.schema ?? 'eventstore';
    if (!/^[a-z_][a-z0-9_]{0,50}$/.test(this.schema)) throw new Error(`Invalid event store schema name: ${this.schema}`);
    this.kind = sql.kind;
    this.channel = `es_${this.schema}`;
    this.maxEventsPerCommit = options.maxEventsPerCommit ?? 4000;
  }

  static async postgres(url: string, options: SqlEventStoreOptions & { poolSize?: number } = {}): Promise<SqlEventStore> {
    return SqlEventStore.open(PgSqlClient.fromUrl(url, options.poolSize ?? 10), options);
  }

  static async pglite(dataDir?: string, options: SqlEventStoreOptions = {}): Promise<SqlEventStore> {
    return SqlEventStore.open(await PgliteSqlClient.open(dataDir, options.template), options);
  }

  static async open(sql: SqlClient, options: SqlEventStoreOptions = {}): Promise<SqlEventStore> {
    const store = new SqlEventStore(sql, options);
    await store.migrate();
    store.unlisten = await sql.listen(store.channel, (payload) => {
      // '' after the LISTEN connection was lost and made again: what was notified meanwhile is
      // unknown, so the head is read back from the database.
      if (payload === '') return void store.headPosition().then((h) => store.learnHead(h), () => undefined);
      // The payload is the head after the commit (another process's, or this one's echoed back).
      const head = Number(payload);
      if (!Number.isFinite(head)) return;
      // During this process's commit the echo of that very commit arrives before the commit returns
      // its rows: taken now, it would send every woken reader to the database for events the tail
      // is about to hold. It waits for the commit (at most one transaction; see commitBatch).
      if (store.committing) store.notifiedHead = Math.max(store.notifiedHead, head);
      else store.learnHead(head);
    });
    return store;
  }

  /** The SQL connection, for stores that keep their own tables beside the events (e.g. the credential vault). */
  get sqlClient(): SqlClient {
    return this.sql;
  }

  get schemaName(): string {
    return this.schema;
  }

  private t(name: string): string {
    return `"${this.schema}".${name}`;
  }

  private async migrate(): Promise<void> {
    const s = this.schema;
    // Concurrent first starts (API and worker) may race on CREATE; serialize them on an advisory lock.
    await this.sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`migrate:${s}`]);
      await tx.query(`CREATE SCHEMA IF NOT EXISTS "${s}"`);
      await tx.query(`CREATE TABLE IF NOT EXISTS ${this.t('events')} (
        position    bigint PRIMARY KEY,
        event_id    uuid NOT NULL UNIQUE,
        stream_id   text NOT NULL,
        revision    bigint NOT NULL,
        type        text NOT NULL,
        data        jsonb NOT NULL,
        metadata    jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (stream_id, revision)
      )`);
      await tx.query(`CREATE TABLE IF NOT EXISTS ${this.t('streams')} (stream_id text PRIMARY KEY, revision bigint NOT NULL)`);
      await tx.query(`CREATE TABLE IF NOT EXISTS ${this.t('head')} (id int PRIMARY KEY CHECK (id = 1), position bigint NOT NULL)`);
      await tx.query(`INSERT INTO ${this.t('head')} (id, position) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`);
      // Idempotency-Key records (DECISIONS 5) live beside the events so that an append can mark its
      // reservation in its own transaction; the HTTP layer's SqlIdempotencyStore reads and writes them.
      await tx.query(`CREATE TABLE IF NOT EXISTS ${this.t('idempotency')} (
        scope           text NOT NULL,
        key             text NOT NULL,
        fingerprint     text NOT NULL,
        state           text NOT NULL CHECK (state IN ('in-progress', 'committed', 'completed')),
        token           text,
        owner           text,
        lease_until     timestamptz,
        request_id      text,
        stream_id       text,
        position        bigint,
        committed_token text,
        status          int,
        body            text,
        content_type    text,
        created_at      timestamptz NOT NULL DEFAULT now(),
        expires_at      timestamptz NOT NULL,
        PRIMARY KEY (scope, key)
      )`);
      await tx.query(`CREATE INDEX IF NOT EXISTS idempotency_expires ON ${this.t('idempotency')} (expires_at)`);
      // Folds' states of long-lived streams (aggregateStream): a cache beside the log, one row per stream and fold.
      await tx.query(`CREATE TABLE IF NOT EXISTS ${this.t('snapshots')} (
        stream_id text NOT NULL,
        name      text NOT NULL,
        revision  bigint NOT NULL,
        position  bigint NOT NULL,
        state     text NOT NULL,
        PRIMARY KEY (stream_id, name)
      )`);
      // Reads as of an instant (`?asOf=`): a resource's streams by their id part, and folds' states by commit time.
      await tx.query(`CREATE INDEX IF NOT EXISTS streams_by_key ON ${this.t('streams')} ((${STREAM_KEY}))`);
      await tx.query(`CREATE TABLE IF NOT EXISTS ${this.t('instant_snapshots')} (
        key       text NOT NULL,
        name      text NOT NULL,
        position  bigint NOT NULL,
        time      timestamptz NOT NULL,
        state     text NOT NULL,
        PRIMARY KEY (key, name, position)
      )`);
      await tx.query(`CREATE INDEX IF NOT EXISTS instant_snapshots_by_time ON ${this.t('instant_snapshots')} (key, name, time, position)`);
    });
  }

  async streamsOfKey(key: string): Promise<StreamHead[]> {
    const rows = await this.sql.query<{ stream_id: string; revision: string | number }>(
      `SELECT stream_id, revision FROM ${this.t('streams')} WHERE ${STREAM_KEY} = $1`,
      [key],
    );
    return rows.map((r) => ({ streamId: r.stream_id, revision: Number(r.revision) }));
  }

  async readInstantSnapshot(key: string, name: string, at: number): Promise<InstantSnapshot | undefined> {
    const [row] = await this.sql.query<{ position: string | number; time: string; state: string }>(
      `SELECT position, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time, state FROM ${this.t('instant_snapshots')}
       WHERE key = $1 AND name = $2 AND time <= $3::timestamptz ORDER BY time DESC, position DESC LIMIT 1`,
      [key, name, new Date(at).toISOString()],
    );
    return row && { position: Number(row.position), time: row.time, state: row.state };
  }

  async writeInstantSnapshots(key: string, name: string, snapshots: InstantSnapshot[]): Promise<void> {
    if (snapshots.length === 0) return;
    await this.sql.query(
      `INSERT INTO ${this.t('instant_snapshots')} (key, name, position, time, state)
       SELECT $1, $2, * FROM unnest($3::bigint[], $4::timestamptz[], $5::text[]) ON CONFLICT DO NOTHING`,
      [key, name, snapshots.map((s) => s.position), snapshots.map((s) => s.time), snapshots.map((s) => s.state)],
    );
  }

  async readSnapshot(streamId: string, name: string): Promise<StreamSnapshot | undefined> {
    const [row] = await this.sql.query<{ revision: string | number; position: string | number; state: string }>(
      `SELECT revision, position, state FROM ${this.t('snapshots')} WHERE stream_id = $1 AND name = $2`,
      [streamId, name],
    );
    return row && { revision: Number(row.revision), position: Number(row.position), state: row.state };
  }

  async writeSnapshot(streamId: string, name: string, snapshot: StreamSnapshot): Promise<void> {
    await this.sql.query(
      `INSERT INTO ${this.t('snapshots')} (stream_id, name, revision, position, state) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (stream_id, name) DO UPDATE SET revision = EXCLUDED.revision, position = EXCLUDED.position, state = EXCLUDED.state
       WHERE ${this.t('snapshots')}.revision < EXCLUDED.revision`,
      [streamId, name, snapshot.revision, snapshot.position, snapshot.state],
    );
  }

  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expectedRevision: options.expectedRevision }], options);
    return result;
  }

  appendMany(appends: StreamAppend[], options: Pick<AppendOptions, 'idempotency'> = {}): Promise<AppendResult[]> {
    if (appends.length === 0 || appends.some((a) => a.events.length === 0)) return Promise.reject(new Error('append needs at least one event per stream'));
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length) return Promise.reject(new Error('a multi-stream append names each stream once'));
    const parts = appends.map((a) => ({ streamId: a.streamId, events: a.events, expected: a.expectedRevision }));
    return new Promise<AppendResult[]>((resolve, reject) => {
      this.queue.push({ parts, count: parts.reduce((n, p) => n + p.events.length, 0), idempotency: options.idempotency, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch: PendingAppend[] = [];
        let count = 0;
        while (this.queue.length > 0 && (batch.length === 0 || count + this.queue[0].count <= this.maxEventsPerCommit)) {
          const next = this.queue.shift()!;
          batch.push(next);
          count += next.count;
        }
        try {
          await this.commitBatch(batch);
        } catch (err) {
          if (batch.length === 1 || isConnectionFailure(err)) {
            // The database unreachable or silent: every append of the batch fails alike, at once
            // (one by one, each would wait out its own timeout).
            for (const p of batch) p.reject(err);
          } else {
            // One bad append (e.g. a duplicate event id) must not fail its neighbours: retry alone.
            for (const p of batch) {
              await this.commitBatch([p]).catch((e) => p.reject(e));
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** A head another process (or this one) committed: readers catch up to it (from the database for what the tail lacks). */
  private learnHead(head: number): void {
    if (head > this.knownHead) this.knownHead = head;
    this.wakeSubscriptions();
  }

  private async commitBatch(batch: PendingAppend[]): Promise<void> {
    this.committing = true;
    try {
      await this.commitBatchInner(batch);
    } finally {
      this.committing = false;
      const notified = this.notifiedHead;
      this.notifiedHead = 0;
      // This commit's own echo is below the tail's end now (nothing to do); another process's head is learnt.
      if (notified > this.tailEnd) this.learnHead(notified);
    }
  }

  private async commitBatchInner(batch: PendingAppend[]): Promise<void> {
    const started = performance.now();
    // Two round trips (ScriptedTransaction): the reads with BEGIN, the writes with COMMIT. Values
    // are inlined as JSON literals that PostgreSQL unpacks (one document per list, never N parameters).
    const json = (v: unknown) => `${sqlLiteral(JSON.stringify(v))}::jsonb`;
    const outcomes = await this.sql.scripted(async (tx) => {
      // Lock the head row first, in its own statement: commits are serialized in position order, and
      // the revisions read next come from a snapshot taken after the previous commit became visible
      // (each statement of a script takes its own snapshot, after the one before it has finished).
      const streamIds = [...new Set(batch.flatMap((p) => p.parts.map((part) => part.streamId)))];
      // Idempotency reservations carried by the batch, locked so that the check and the mark below
      // are one with the append (a key written by one request is never written by another).
      const reserved = batch.filter((p) => p.idempotency);
      const [[head], rows, idem = []] = (await tx.send([
        `SELECT position FROM ${this.t('head')} WHERE id = 1 FOR UPDATE`,
        `SELECT stream_id, revision FROM ${this.t('streams')} WHERE stream_id = ANY(ARRAY(SELECT jsonb_array_elements_text(${json(streamIds)})))`,
        ...(reserved.length > 0
          ? [
              `SELECT i.scope, i.key, i.state, i.request_id FROM ${this.t('idempotency')} i
               JOIN jsonb_to_recordset(${json(reserved.map((p) => ({ scope: p.idempotency!.scope, key: p.idempotency!.key })))}) AS r(scope text, key text) ON i.scope = r.scope AND i.key = r.key
               FOR UPDATE OF i`,
            ]
          : []),
      ])) as [[{ position: number }], Array<{ stream_id: string; revision: number }>, Array<{ scope: string; key: string; state: string; request_id: string | null }>?];
      let position = Number(head.position);
      const current = new Map<string, number>();
      for (const r of rows) current.set(r.stream_id, Number(r.revision));
      const reservations = new Map<string, { state: string; requestId: string | null }>();
      for (const r of idem) reservations.set(`${r.scope}\u0000${r.key}`, { state: r.state, requestId: r.request_id });
      const marks: Array<{ scope: string; key: string; requestId: string; streamId: string; position: number }> = [];

      const outcomes: Array<AppendResult[] | WrongExpectedRevisionError | IdempotencyKeyCommittedError> = [];
      const inserts: unknown[][] = [];
      const touched = new Map<string, number>();
      const actualOf = (streamId: string) => (current.has(streamId) ? current.get(streamId)! : 'no_stream');
      for (const p of batch) {
        // Every part's check holds, or the whole append is refused (naming the first that failed).
        const failed = p.parts.find(({ streamId, expected }) => {
          const actual = actualOf(streamId);
          return !(expected === 'any' || (expected === 'no_stream' && actual === 'no_stream') || (typeof expected === 'number' && actual === expected));
        });
        if (failed) {
          // The decision was made on a stale read: the next read of this stream goes to the database.
          this.tailStreams.delete(failed.streamId);
          outcomes.push(new WrongExpectedRevisionError(failed.streamId, failed.expected, actualOf(failed.streamId)));
          continue;
        }
        const res = p.idempotency ? reservations.get(`${p.idempotency.scope}\u0000${p.idempotency.key}`) : undefined;
        if (p.idempotency && res) {
          if (res.requestId !== null && res.requestId !== p.idempotency.requestId) {
            outcomes.push(new IdempotencyKeyCommittedError(p.idempotency.scope, p.idempotency.key, res.requestId));
            continue;
          }
          res.requestId = p.idempotency.requestId; // a later append of another request in this batch is refused too
        }
        const results: AppendResult[] = [];
        for (const part of p.parts) {
          const actual = actualOf(part.streamId);
          let revision = actual === 'no_stream' ? -1 : actual;
          for (const e of part.events) {
            revision++;
            position++;
            inserts.push([position, e.id, part.streamId, revision, e.type, e.data, e.metadata]);
          }
          current.set(part.streamId, revision);
          touched.set(part.streamId, revision);
          results.push({ nextRevision: revision, position });
        }
        if (p.idempotency && res) {
          // The request's write is the first part (a multi-stream append's others are bookkeeping):
          // its stream, and its last event's position, which recoveries look the write up by.
          const own = results[0].position;
          const same = marks.find((m) => m.scope === p.idempotency!.scope && m.key === p.idempotency!.key);
          if (same) same.position = own; // one request, several appends: the first stream, the last position
          else marks.push({ ...p.idempotency, streamId: p.parts[0].streamId, position: own });
        }
        outcomes.push(results);
      }
      if (inserts.length > 0) {
        // One round trip: events, stream revisions, head and the wake-up notification.
        const ids = [...touched.keys()];
        // The events travel as one JSON document that PostgreSQL unpacks: far cheaper than binding
        // thousands of parameters or escaping arrays of JSON strings on the client.
        const rows = JSON.stringify(inserts.map(([position, id, stream, revision, type, data, metadata]) => ({ p: position, i: id, s: stream, r: revision, t: type, d: data, m: metadata })));
        const written = [
          `WITH ins AS (
             INSERT INTO ${this.t('events')} (position, event_id, stream_id, revision, type, data, metadata)
             SELECT (e->>'p')::bigint, (e->>'i')::uuid, e->>'s', (e->>'r')::bigint, e->>'t', e->'d', e->'m'
             FROM jsonb_array_elements(${sqlLiteral(rows)}::jsonb) AS e
           ), st AS (
             INSERT INTO ${this.t('streams')} (stream_id, revision)
             SELECT x->>0, (x->>1)::bigint FROM jsonb_array_elements(${json(ids.map((id) => [id, touched.get(id)!]))}) AS x
             ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision
           ), hd AS (
             UPDATE ${this.t('head')} SET position = ${sqlLiteral(position)} WHERE id = 1
           )
           SELECT pg_notify(${sqlLiteral(this.channel)}, ${sqlLiteral(String(position))}), to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at`,
        ];
        if (marks.length > 0) {
          // The reservation becomes `committed` with the write: after a crash, a retry with the key
          // finds what was written instead of writing again. The lease holder at this moment may
          // store the response (committed_token); the first stream and the last position are kept.
          written.push(
            `UPDATE ${this.t('idempotency')} i
             SET state = CASE WHEN i.state = 'in-progress' THEN 'committed' ELSE i.state END,
                 request_id = m.request_id,
                 stream_id = COALESCE(i.stream_id, m.stream_id),
                 position = GREATEST(COALESCE(i.position, 0), m.position),
                 committed_token = COALESCE(i.committed_token, i.token),
                 lease_until = NULL,
                 expires_at = GREATEST(i.expires_at, now() + interval '24 hours')
             FROM jsonb_to_recordset(${json(marks.map((m) => ({ scope: m.scope, key: m.key, request_id: m.requestId, stream_id: m.streamId, position: m.position })))})
                   AS m(scope text, key text, request_id text, stream_id text, position bigint)
             WHERE i.scope = m.scope AND i.key = m.key`,
          );
        }
        // The writes and COMMIT in one round trip.
        const [[stamp]] = (await tx.send(written, { commit: true })) as [[{ recorded_at: string }?]];
        return { outcomes, written: inserts.length, rows, recordedAt: stamp?.recorded_at ?? new Date().toISOString() };
      }
      return { outcomes, written: 0, rows: null, recordedAt: null };
    });
    // Into the tail before any subscription is woken (they re-read right after the wake-up).
    if (outcomes.rows && outcomes.recordedAt) this.absorbCommitted(outcomes.rows, outcomes.recordedAt);
    if (outcomes.written > 0) this.onAppendCommitted?.(outcomes.written, performance.now() - started);
    batch.forEach((p, i) => {
      const o = outcomes.outcomes[i];
      if (o instanceof WrongExpectedRevisionError || o instanceof IdempotencyKeyCommittedError) p.reject(o);
      else p.resolve(o);
    });
    if (outcomes.written > 0) this.wakeSubscriptions();
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const cached = await this.readStreamFromTail(streamId);
    if (cached) {
      const from = options.fromRevision ?? 0;
      return cached.filter((e) => e.revision >= from).slice(0, options.maxCount ?? 1_000_000);
    }
    const rows = await this.sql.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${this.t('events')} WHERE stream_id = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      [streamId, options.fromRevision ?? 0, options.maxCount ?? 1_000_000],
    );
    return rows.map(toRecorded);
  }

  /**
   * Subscriptions read the log's tail from memory when they can (see `tail`); otherwise from the
   * database, where readers asking for the same range join one query already in flight. Only a query
   * started after the latest wake-up may be joined, so a reader never gets a snapshot older than an
   * append it was told about (it would then sleep past it).
   */
  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const cached = await this.readTail(options.fromPosition, options.maxCount);
    if (cached) return cached;
    const key = `${options.fromPosition}:${options.maxCount}:${this.wakeUps}`;
    let shared = this.tailReads.get(key);
    if (!shared) {
      const startedAt = Date.now();
      shared = this.queryAll(options)
        .then((rows) => {
          this.absorb(options.fromPosition, rows, rows.length < options.maxCount ? startedAt : null);
          return rows;
        })
        .finally(() => this.tailReads.delete(key));
      this.tailReads.set(key, shared);
    }
    return (await shared).slice();
  }

  private wakeUps = 0;
  private readonly tailReads = new Map<string, Promise<RecordedEvent[]>>();

  /**
   * The most recent events of the log, contiguous, covering positions (tailStart, tailStart + length].
   * Filled by this process's own commits (it has every field of what it wrote) and by database reads.
   * Under load every append wakes a dozen subscriptions (read models, sagas, the relay), which used to
   * make a dozen tail queries per create; they now read the events from here. Positions are gap-free
   * and commit in order, so a contiguous range is exactly what the database holds for it.
   */
  private tail: RecordedEvent[] = [];
  private tailStart = -1;
  /** Highest position known to be committed (own commits, NOTIFY payloads, reads). */
  private knownHead = 0;
  /** When a database read last came back short at the tail's end (nothing beyond it then). */
  private tailVerifiedAt = 0;
  private extending: Promise<void> | null = null;
  private static readonly TAIL_MAX = 20_000;
  /** Events another process committed that the tail fetches itself before answering. */
  private static readonly EXTEND_MAX = 1000;

  private get tailEnd(): number {
    return this.tailStart + this.tail.length;
  }

  /** The batch from memory, or null when the tail cannot answer it (then the database does). */
  private async readTail(from: number, max: number): Promise<RecordedEvent[] | null> {
    if (this.tailStart < 0 || from < this.tailStart) return null;
    // Events committed elsewhere (known from NOTIFY) are fetched first: a short batch tells the
    // subscription it reached the head, so the tail must reach the known head before answering short.
    while (this.tailEnd < this.knownHead && this.tailEnd - from < max) {
      // A large catch-up (a rebuild, a runner far behind) reads its own batches from the database.
      if (this.knownHead - this.tailEnd > SqlEventStore.EXTEND_MAX) return null;
      const before = this.tailEnd;
      await this.extendTail();
      if (this.tailEnd === before || from < this.tailStart) return null;
    }
    if (from > this.tailEnd) return null;
    if (from === this.tailEnd) {
      // Caught up. NOTIFY can be lost (a reconnect), so at the poll cadence the database is asked.
      if (Date.now() - this.tailVerifiedAt >= (this.options.pollIntervalMs ?? 250)) return null;
      return [];
    }
    const offset = from - this.tailStart;
    return this.tail.slice(offset, offset + max);
  }

  /**
   * A stream whose first event is in the tail is whole in memory (a job's or a new instance's stream
   * while its saga and executor work on it). Like a tail read, it is brought up to the known head first.
   * A command that still decides on a stale stream (a commit elsewhere whose NOTIFY has not arrived)
   * loses its expected-revision check, which drops the stream from here, and retries on the database.
   */
  private async readStreamFromTail(streamId: string): Promise<RecordedEvent[] | null> {
    if (!this.tailStreams.has(streamId)) return null;
    while (this.tailEnd < this.knownHead) {
      if (this.knownHead - this.tailEnd > SqlEventStore.EXTEND_MAX) return null;
      const before = this.tailEnd;
      await this.extendTail();
      if (this.tailEnd === before) return null;
    }
    return this.tailStreams.get(streamId)?.slice() ?? null;
  }

  /** Streams whose every event is in the tail (their first event is), by id. */
  private readonly tailStreams = new Map<string, RecordedEvent[]>();

  private indexTail(events: RecordedEvent[]): void {
    for (const e of events) {
      const known = this.tailStreams.get(e.streamId);
      if (known) known.push(e);
      else if (e.revision === 0) this.tailStreams.set(e.streamId, [e]);
    }
  }

  private extendTail(): Promise<void> {
    this.extending ??= (async () => {
      const from = this.tailEnd;
      const startedAt = Date.now();
      const rows = await this.queryAll({ fromPosition: from, maxCount: SqlEventStore.EXTEND_MAX });
      this.absorb(from, rows, rows.length < SqlEventStore.EXTEND_MAX ? startedAt : null);
    })().finally(() => (this.extending = null));
    return this.extending;
  }

  /** Takes a database read of the range (from, from + rows.length] into the tail where it connects. */
  private absorb(from: number, rows: RecordedEvent[], shortReadAt: number | null): void {
    const end = from + rows.length;
    if (end > this.knownHead) this.knownHead = end;
    if (this.tailStart < 0 || from > this.tailEnd) {
      // No tail yet, or this read is past it (the tail fell behind): start over from this read.
      if (rows.length === 0 && this.tailStart >= 0) return;
      this.tail = rows.slice();
      this.tailStart = from;
      this.tailStreams.clear();
      this.indexTail(this.tail);
    } else if (end > this.tailEnd) {
      const added = rows.slice(this.tailEnd - from);
      this.tail.push(...added);
      this.indexTail(added);
    }
    if (shortReadAt !== null && end >= this.tailEnd) this.tailVerifiedAt = Math.max(this.tailVerifiedAt, shortReadAt);
    this.trimTail();
  }

  /** This process's commit: its events, as the database will return them, join the tail when they connect. */
  private absorbCommitted(rowsJson: string, recordedAt: string): void {
    const rows = JSON.parse(rowsJson) as Array<{ p: number; i: string; s: string; r: number; t: string; d: Record<string, unknown>; m: RecordedEvent['metadata'] }>;
    if (rows.length === 0) return;
    const first = rows[0].p;
    const last = rows[rows.length - 1].p;
    if (last > this.knownHead) this.knownHead = last;
    if (this.tailStart >= 0 && first !== this.tailEnd + 1) return; // another process committed in between
    if (this.tailStart < 0) this.tailStart = first - 1;
    const added = rows.map((r): RecordedEvent => ({ id: r.i, type: r.t, streamId: r.s, revision: r.r, position: r.p, data: r.d, metadata: r.m, recordedAt }));
    this.tail.push(...added);
    this.indexTail(added);
    this.trimTail();
  }

  private trimTail(): void {
    const excess = this.tail.length - SqlEventStore.TAIL_MAX;
    if (excess < SqlEventStore.TAIL_MAX / 4) return;
    // A stream losing its first event is no longer whole in memory.
    for (let i = 0; i < excess; i++) this.tailStreams.delete(this.tail[i].streamId);
    this.tail = this.tail.slice(excess);
    this.tailStart += excess;
  }

  private async queryAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const rows = await this.sql.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${this.t('events')} WHERE position > $1 ORDER BY position LIMIT $2`,
      [options.fromPosition, options.maxCount],
    );
    return rows.map(toRecorded);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const sub = new CatchUpSubscription(this, options, this.options.pollIntervalMs ?? 250);
    this.subscriptions.add(sub);
    const stop = sub.stop.bind(sub);
    sub.stop = async () => {
      this.subscriptions.delete(sub);
      await stop();
    };
    return sub;
  }

  private wakeSubscriptions(): void {
    this.wakeUps++;
    for (const s of this.subscriptions) s.notify();
  }

  async headPosition(): Promise<number> {
    const [row] = await this.sql.query<{ position: number }>(`SELECT position FROM ${this.t('head')} WHERE id = 1`);
    const head = Number(row?.position ?? 0);
    // A head this store has shown is one its reads reach: without this, a read just after could be
    // answered "caught up" by a tail that has not heard of the commit yet (its NOTIFY, or this
    // process's own commit still on its way into the tail), and a reader that took the head as its
    // floor (the event streams' EventTail) would skip what lies below it.
    if (head > this.knownHead) this.knownHead = head;
    return head;
  }

  async ping(): Promise<void> {
    await this.sql.query('SELECT 1');
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.unlisten?.();
    await this.sql.close();
  }

  /** Drops the schema: tests only. */
  async dropSchema(): Promise<void> {
    await this.sql.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
  }
}

function toRecorded(r: EventRow): RecordedEvent {
  return {
    id: r.event_id,
    type: r.type,
    streamId: r.stream_id,
    revision: Number(r.revision),
    position: Number(r.position),
    data: r.data,
    metadata: r.metadata,
    recordedAt: typeof r.recorded_at === 'string' ? r.recorded_at : r.recorded_at.toISOString(),
  };
}
