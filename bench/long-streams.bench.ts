/**
 * Group "streams" (BENCH_ONLY=streams): a write on a long-lived stream costs the same however long its
 * history (issue 25). For an invoice number (the project's gapless sequence), a wallet credit and a
 * custom-role grant: the latency of one write on a stream with BENCH_STREAM_EVENTS (default 100,000)
 * earlier events, beside the same write on a stream of 10 (the baseline), both read from a store
 * opened afresh on the same PostgreSQL schema (as after a restart: its memory tail empty). The long
 * stream's fold is snapshotted (`Decider.snapshot`, aggregateStream) as the running service would have
 * left it; the same write without the snapshot is reported beside it (what every write cost before).
 * Knobs: BENCH_STREAM_EVENTS, BENCH_STREAM_WRITES (writes timed per stream, default 20).
 */
import { randomUUID } from 'node:crypto';
import { walletStream } from '../libs/domain/billing/events';
import { referenceStreamOf, walletDecider, walletReferenceUsed, type WalletCommand } from '../libs/domain/billing/wallet.decider';
import type { Decider, DomainEvent } from '../libs/domain/shared/domain-error';
import { customRolesDecider, customRolesStream, type CustomRoleCommand } from '../libs/domain/identity/custom-roles';
import { invoiceNumberDecider } from '../libs/domain/invoicing/invoice.decider';
import { aggregateStream } from '../libs/eventstore/src/aggregate-stream';
import { CoalescingWriter } from '../libs/eventstore/src/coalescing-writer';
import { handleCommand, toNewEvent } from '../libs/eventstore/src/handle-command';
import { SqlEventStore } from '../libs/eventstore/src/sql/sql-event-store';
import { log, percentile, row, shortId, type Row } from './lib';

const at = '2026-01-01T00:00:00.000Z';
const context = { metadata: { projectId: 'bench', actor: 'apikey:bench' } };

interface Kind<C, E extends DomainEvent, S> {
  item: string;
  name: string;
  decider: Decider<C, E, S>;
  stream: (owner: string) => string;
  /** The stream's first command (e.g. the role the grants are of), if it needs one. */
  setup?: (owner: string) => C;
  write: (owner: string, i: number) => C;
  /** The earlier history's i-th command, when it is not `write`'s (default: write(owner, -1 - i)). */
  history?: (owner: string, i: number) => C;
  /** How the service writes it, when not `handleCommand` (the wallet's writer, which records each reference once). */
  writeWith?: (store: SqlEventStore, decider: Decider<C, E, S>, stream: string, command: C) => Promise<unknown>;
}

const walletWriters = new Map<object, CoalescingWriter<WalletCommand, DomainEvent, unknown>>();
function walletWriter(decider: typeof walletDecider): CoalescingWriter<WalletCommand, DomainEvent, unknown> {
  if (!walletWriters.has(decider)) walletWriters.set(decider, new CoalescingWriter(decider as never, { attempts: 200, maxBatch: 256, once: { streamOf: referenceStreamOf, record: walletReferenceUsed } }));
  return walletWriters.get(decider)!;
}

const kinds = [
  { item: 's1', name: 'invoice number', decider: invoiceNumberDecider, stream: (o: string) => `invoiceseq-${o}`, write: (o: string, i: number) => ({ type: 'AssignNumber' as const, projectId: o, ownerId: `inv-${i}`, now: at }) },
  {
    item: 's2',
    name: 'wallet credit',
    decider: walletDecider,
    stream: (o: string) => walletStream(o, 'USD'),
    write: (o: string, i: number): WalletCommand => ({ type: 'CreditWallet', projectId: o, currency: 'USD', amountCents: 100, creditId: `c-${i}`, source: 'top-up', reference: `r-${i}`, description: null, conversion: null, now: at }),
    // writeWallet's writer (one per decider, as the service keeps one).
    writeWith: (store: SqlEventStore, decider: typeof walletDecider, stream: string, command: WalletCommand) => walletWriter(decider).write(store, stream, command, context),
  },
  {
    item: 's3',
    name: 'custom-role grant',
    decider: customRolesDecider,
    stream: (o: string) => customRolesStream(o),
    setup: (o: string): CustomRoleCommand => ({ type: 'CreateRole', projectId: o, roleId: 'role-1', name: 'Ops', description: null, permissions: ['instances:read'], now: at }),
    write: (o: string, i: number): CustomRoleCommand => ({ type: 'GrantRole', projectId: o, roleId: 'role-1', grantId: `g-${i}`, holder: { kind: 'api-key', id: `k-${i}` }, now: at }),
    // Keys given the role and later revoked: a long history, a handful of holders at any time.
    history: (o: string, i: number): CustomRoleCommand =>
      i % 2 === 0 ? { type: 'GrantRole', projectId: o, roleId: 'role-1', grantId: `h-${i}`, holder: { kind: 'api-key', id: `hk-${i}` }, now: at } : { type: 'ReleaseRole', projectId: o, grantId: `h-${i - 1}`, now: at },
  },
] as unknown as Kind<unknown, DomainEvent, unknown>[];

/** `count` events decided one after another (as the service would have written them), appended in batches. */
async function seed(store: SqlEventStore, kind: Kind<unknown, DomainEvent, unknown>, owner: string, count: number): Promise<void> {
  let state = kind.decider.initialState();
  let batch: DomainEvent[] = [];
  let revision: number | 'no_stream' = 'no_stream';
  const commands = kind.setup ? [kind.setup(owner)] : [];
  for (let i = 0; commands.length < count; i++) commands.push(kind.history ? kind.history(owner, i) : kind.write(owner, -1 - i));
  for (const command of commands) {
    for (const e of kind.decider.decide(command, state)) (batch.push(e), (state = kind.decider.evolve(state, e)));
    if (batch.length >= 1000 || command === commands[commands.length - 1]) {
      revision = (await store.append(kind.stream(owner), batch.map((e) => toNewEvent(e, context)), { expectedRevision: revision })).nextRevision;
      batch = [];
    }
  }
}

const median = (ms: number[]) => percentile([...ms].sort((a, b) => a - b), 50);

async function timeWrites(store: SqlEventStore, kind: Kind<unknown, DomainEvent, unknown>, decider: Decider<unknown, DomainEvent, unknown>, owner: string, writes: number, from: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < writes; i++) {
    const t = performance.now();
    if (kind.writeWith) await kind.writeWith(store, decider, kind.stream(owner), kind.write(owner, from + i));
    else await handleCommand(store, kind.stream(owner), decider, kind.write(owner, from + i), context);
    ms.push(performance.now() - t);
  }
  return ms;
}

export async function benchLongStreams(opts: { pgUrl: string; events: number; writes: number }): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const schema = `bench_streams_${shortId()}`;
  const seeding = await SqlEventStore.postgres(opts.pgUrl, { schema, poolSize: 4 });
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  try {
    for (const kind of kinds) {
      const short = `short-${randomUUID()}`;
      const long = `long-${randomUUID()}`;
      const t = performance.now();
      await seed(seeding, kind, short, 10);
      await seed(seeding, kind, long, opts.events);
      // The running service folds through aggregateStream, which keeps the snapshot; so does this.
      await aggregateStream(seeding, kind.stream(long), kind.decider);
      log(`${kind.name}: seeded ${opts.events.toLocaleString('en-US')} events in ${((performance.now() - t) / 1000).toFixed(1)} s`);

      // As after a restart: a store with an empty tail on the same schema.
      const fresh = await SqlEventStore.postgres(opts.pgUrl, { schema, poolSize: 4 });
      try {
        const shortMs = median(await timeWrites(fresh, kind, kind.decider, short, opts.writes, 0));
        const longMs = median(await timeWrites(fresh, kind, kind.decider, long, opts.writes, 0));
        const { snapshot: _kept, ...withoutSnapshot } = kind.decider;
        const unsnapshottedMs = median(await timeWrites(fresh, kind, withoutSnapshot, long, 3, opts.writes));
        log(`${kind.name}: ${shortMs.toFixed(1)} ms at 10 events, ${longMs.toFixed(1)} ms at ${opts.events.toLocaleString('en-US')} (without the snapshot ${unsnapshottedMs.toFixed(0)} ms)`);
        details[kind.item] = { shortMs, longMs, unsnapshottedMs };
        rows.push(
          row({
            item: kind.item,
            metric: `${kind.name} after ${opts.events.toLocaleString('en-US')} events on its stream, median of ${opts.writes} (fresh store)`,
            unit: 'ms',
            value: longMs,
            baselineName: 'the same write at 10 events',
            baseline: shortMs,
            lowerIsBetter: true,
            target: 1 / 1.5,
            targetKind: 'ratio',
            note: `without its snapshot: ${unsnapshottedMs.toFixed(0)} ms`,
          }),
        );
      } finally {
        await fresh.close();
      }
    }
    return { rows, details };
  } finally {
    await seeding.dropSchema().catch(() => undefined);
    await seeding.close();
  }
}
