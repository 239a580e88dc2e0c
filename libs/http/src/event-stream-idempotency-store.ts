/**
 * Durable Idempotency-Key records for an event store without tables (EventStoreDB), written against
 * the event store port only (so it runs on any adapter; `npm run test:esdb` runs its contract on
 * EventStoreDB). What the SQL store keeps in a row, this keeps in one stream per key,
 * `idempotency-<sha256(scope, key)>`, whose events are the record's history:
 * - `begin` reserves the key with `KeyReserved` at the stream's expected revision, so of two
 *   processes only one takes it; a reservation carries a lease that its process renews while it
 *   lives (`LeaseRenewed`), capped by the lock time.
 * - The write itself carries the key in its events' metadata (`idempotencyKey`, `projectId`,
 *   `requestId`: handleCommand puts them there); EventStoreDB cannot mark another stream in the same
 *   append, so that metadata is the record that the write happened.
 * - `complete` appends `KeyAnswered` (status, content type, sealed body, expiry: 24 h); a replay returns it.
 * - A reservation whose lease lapsed (its process died) with no answer: the log after the
 *   reservation is read for an event carrying the key in its scope. Found: the write committed and
 *   its answer was lost; `KeyCommitted` records where (so the read is done once) and `begin` reports
 *   it for the route to rebuild the answer, stored by `recovered`. Not found: the key is taken over.
 * Known limit: a process that is alive but could not renew its lease for a whole lease period (cut
 * off from the store) and writes after another process took its key over would write twice; the
 * SQL store refuses that write in the append's transaction, which EventStoreDB cannot do.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '../../eventstore/src/event-store.port';
import { WrongExpectedRevisionError } from '../../eventstore/src/event-store.port';
import { aggregateStream } from '../../eventstore/src/aggregate-stream';
import type { BeginResult, CommittedWrite, IdempotencyStore, StoredResponse } from './idempotency';
import { IDEMPOTENCY_TTL_MS } from './idempotency';

export const IDEMPOTENCY_STREAM_CATEGORY = 'idempotency';

const T = {
  reserved: 'idempotency.KeyReserved.v1',
  renewed: 'idempotency.LeaseRenewed.v1',
  committed: 'idempotency.KeyCommitted.v1',
  answered: 'idempotency.KeyAnswered.v1',
  released: 'idempotency.KeyReleased.v1',
} as const;

export interface EventStreamIdempotencyStoreOptions {
  leaseMs?: number;
  seal?: { encrypt(plain: string, aad: string): string; decrypt(sealed: string, aad: string): string };
  /** Time source (ms); the wall clock by default. */
  now?: () => number;
  /** How many events one read of the log after a lapsed reservation takes at a time. */
  scanBatch?: number;
}

type Folded =
  | { state: 'none' }
  | { state: 'in-progress'; fingerprint: string; token: string; leaseUntil: number; lockUntil: number; position: number }
  | { state: 'committed'; fingerprint: string; token: string; write: Omit<CommittedWrite, 'scope' | 'key'> }
  | { state: 'completed'; fingerprint: string; response: StoredResponse; expiresAt: number }
  | { state: 'free' };

interface Stream { folded: Folded; revision: number | 'no_stream' }

export class EventStreamIdempotencyStore implements IdempotencyStore {
  readonly owner = randomUUID();
  private readonly leaseMs: number;
  private readonly now: () => number;
  /** This process's reservations (renewed while held). */
  private readonly held = new Map<string, { scope: string; key: string; token: string; lockUntil: number }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly options: EventStreamIdempotencyStoreOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
    this.now = options.now ?? Date.now;
  }

  static streamOf(scope: string, key: string): string {
    return `${IDEMPOTENCY_STREAM_CATEGORY}-${createHash('sha256').update(`${scope}\u0000${key}`).digest('hex')}`;
  }

  start(): this {
    if (this.timer) return this;
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Extends the leases this process holds (a reservation past its lock time is left to lapse). */
  async renew(): Promise<void> {
    const now = this.now();
    for (const [stream, h] of this.held) {
      if (now >= h.lockUntil) {
        this.held.delete(stream);
        continue;
      }
      await this.append(stream, 'any', T.renewed, { token: h.token, leaseUntil: Math.min(now + this.leaseMs, h.lockUntil) });
    }
  }

  async begin(scope: string, key: string, fingerprint: string, lockMs: number): Promise<BeginResult> {
    const stream = EventStreamIdempotencyStore.streamOf(scope, key);
    for (let attempt = 0; attempt < 5; attempt++) {
      const { folded, revision } = await this.read(scope, key, stream);
      const now = this.now();
      if (folded.state === 'completed') return { state: 'completed', fingerprint: folded.fingerprint, response: folded.response, ttlMs: folded.expiresAt - now };
      if (folded.state === 'committed') return { state: 'committed', fingerprint: folded.fingerprint, write: { scope, key, ...folded.write } };
      if (folded.state === 'in-progress') {
        if (folded.leaseUntil > now && folded.lockUntil > now) return { state: 'in-progress', fingerprint: folded.fingerprint };
        // Its process died (or its lock ran out): did it write before?
        const write = await this.findWrite(scope, key, folded.position);
        if (write) {
          const ok = await this.append(stream, revision, T.committed, { token: folded.token, ...write });
          if (ok) return { state: 'committed', fingerprint: folded.fingerprint, write: { scope, key, ...write } };
          continue; // the record moved meanwhile: look again
        }
      }
      // None, released, expired, or a reservation that wrote nothing: take the key.
      const token = randomUUID();
      const lockUntil = now + lockMs;
      const ok = await this.append(stream, revision, T.reserved, { token, fingerprint, owner: this.owner, leaseUntil: Math.min(now + this.leaseMs, lockUntil), lockUntil });
      if (ok) {
        this.held.set(stream, { scope, key, token, lockUntil });
        return { state: 'acquired', token };
      }
    }
    // Five moves of the record under us: another process is busy with this key (renewing, taking it).
    // The client is told so (409, retry later) rather than given a 500.
    const { folded } = await this.read(scope, key, stream);
    if (folded.state === 'completed') return { state: 'completed', fingerprint: folded.fingerprint, response: folded.response, ttlMs: folded.expiresAt - this.now() };
    if (folded.state === 'committed') return { state: 'committed', fingerprint: folded.fingerprint, write: { scope, key, ...folded.write } };
    if (folded.state === 'in-progress') return { state: 'in-progress', fingerprint: folded.fingerprint };
    throw new Error('idempotency key could not be acquired');
  }

  async complete(scope: string, key: string, token: string, fingerprint: string, response: StoredResponse, ttlMs: number = IDEMPOTENCY_TTL_MS): Promise<boolean> {
    const stream = EventStreamIdempotencyStore.streamOf(scope, key);
    this.held.delete(stream);
    for (let attempt = 0; attempt < 5; attempt++) {
      const { folded, revision } = await this.read(scope, key, stream);
      const mine = (folded.state === 'in-progress' || folded.state === 'committed') && folded.token === token;
      if (!mine) return false;
      if (await this.answer(scope, key, stream, revision, fingerprint, response, ttlMs)) return true;
    }
    return false;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    const stream = EventStreamIdempotencyStore.streamOf(scope, key);
    this.held.delete(stream);
    for (let attempt = 0; attempt < 5; attempt++) {
      const { folded, revision } = await this.read(scope, key, stream);
      if (folded.state !== 'in-progress' || folded.token !== token) return;
      // Only a reservation that wrote nothing is freed: a committed write keeps the key, and a retry recovers its answer.
      const write = await this.findWrite(scope, key, folded.position);
      if (write) {
        if (await this.append(stream, revision, T.committed, { token, ...write })) return;
        continue;
      }
      if (await this.append(stream, revision, T.released, { token })) return;
    }
  }

  async recovered(scope: string, key: string, response: StoredResponse): Promise<StoredResponse> {
    const stream = EventStreamIdempotencyStore.streamOf(scope, key);
    for (let attempt = 0; attempt < 5; attempt++) {
      const { folded, revision } = await this.read(scope, key, stream);
      if (folded.state === 'completed') return folded.response; // another retry stored one first
      if (folded.state !== 'committed') return response;
      if (await this.answer(scope, key, stream, revision, folded.fingerprint, response, IDEMPOTENCY_TTL_MS)) return response;
    }
    return response;
  }

  // ------------------------------------------------------------------ internals
  private answer(scope: string, key: string, stream: string, revision: number | 'no_stream', fingerprint: string, response: StoredResponse, ttlMs: number): Promise<boolean> {
    const body = this.options.seal ? this.options.seal.encrypt(response.body, `idempotency:${scope}:${key}`) : response.body;
    return this.append(stream, revision, T.answered, { fingerprint, status: response.status, contentType: response.contentType ?? null, body, expiresAt: this.now() + ttlMs });
  }

  /** Appends at the expected revision; false when the stream moved (someone else wrote first). */
  private async append(stream: string, revision: number | 'no_stream' | 'any', type: string, data: Record<string, unknown>): Promise<boolean> {
    try {
      await this.events.append(stream, [{ id: randomUUID(), type, data, metadata: { schemaVersion: 1 } }], { expectedRevision: revision });
      return true;
    } catch (e) {
      if (e instanceof WrongExpectedRevisionError) return false;
      throw e;
    }
  }

  private async read(scope: string, key: string, stream: string): Promise<Stream> {
    const { state, revision } = await aggregateStream(this.events, stream, { initialState: (): Folded => ({ state: 'none' }), evolve: (s, e) => this.evolve(scope, key, s, e) });
    return { folded: state.state === 'completed' && state.expiresAt <= this.now() ? { state: 'free' } : state, revision };
  }

  private evolve(scope: string, key: string, s: Folded, e: RecordedEvent): Folded {
    const d = e.data as Record<string, unknown>;
    switch (e.type) {
      case T.reserved:
        return { state: 'in-progress', fingerprint: String(d.fingerprint), token: String(d.token), leaseUntil: Number(d.leaseUntil), lockUntil: Number(d.lockUntil), position: e.position };
      case T.renewed:
        return s.state === 'in-progress' && s.token === d.token ? { ...s, leaseUntil: Number(d.leaseUntil) } : s;
      case T.committed:
        return s.state === 'in-progress' && s.token === d.token
          ? { state: 'committed', fingerprint: s.fingerprint, token: s.token, write: { requestId: (d.requestId as string | null) ?? null, streamId: String(d.streamId), position: Number(d.position) } }
          : s;
      case T.answered: {
        const body = String(d.body ?? '');
        const opened = this.options.seal && body ? this.options.seal.decrypt(body, `idempotency:${scope}:${key}`) : body;
        return { state: 'completed', fingerprint: String(d.fingerprint), response: { status: Number(d.status), body: opened, contentType: (d.contentType as string | null) ?? undefined }, expiresAt: Number(d.expiresAt) };
      }
      case T.released:
        return s.state === 'in-progress' && s.token === d.token ? { state: 'free' } : s;
      default:
        return s;
    }
  }

  /**
   * The keyed write made after the reservation at `after`, if any: the events carrying this key in
   * this scope (the first one's stream and request, the last one's position).
   */
  private async findWrite(scope: string, key: string, after: number): Promise<Omit<CommittedWrite, 'scope' | 'key'> | null> {
    const batch = this.options.scanBatch ?? 1000;
    let from = after;
    const found: Array<Omit<CommittedWrite, 'scope' | 'key'>> = [];
    for (;;) {
      const events = await this.events.readAll({ fromPosition: from, maxCount: batch });
      for (const e of events) {
        if (e.metadata.idempotencyKey !== key || e.metadata.causationId || scopeOf(e) !== scope || e.streamId.startsWith(`${IDEMPOTENCY_STREAM_CATEGORY}-`)) continue;
        const first = found[0];
        if (!first) found.push({ requestId: e.metadata.requestId ?? null, streamId: e.streamId, position: e.position });
        else if (e.metadata.requestId === first.requestId) first.position = e.position;
      }
      if (events.length < batch) return found[0] ?? null;
      from = events[events.length - 1].position;
    }
  }
}

/** The scope a keyed event was written in (as handleCommand's reservation derives it). */
function scopeOf(e: RecordedEvent): string | undefined {
  const { projectId, actor } = e.metadata;
  return typeof projectId === 'string' && projectId ? `project:${projectId}` : typeof actor === 'string' && actor.startsWith('admin:') ? actor : undefined;
}
