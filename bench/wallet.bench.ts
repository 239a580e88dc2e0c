/**
 * Group "wallets" (BENCH_ONLY=wallets): wallet credits/s through the wallet's whole write path
 * (`writeWallet`, which the API's handlers and the credit process managers use: read the wallet
 * stream, fold it, decide, append at the expected revision, retry a lost revision check on the fresh
 * balance; the commands of one wallet that queue while one is written share the next round's read
 * and append) on the server profile's event store (PostgreSQL),
 * beside the bare 1-event append (own stream per writer, exact expected revision) in the same run.
 *   w1: every writer credits the same wallet (contention: rounds of queued credits);
 *   w2: credits spread over 1,000 wallets (a writer picks the next wallet of a shared counter).
 * The three loads alternate in slices so each sees the same share of a busy machine.
 * Knobs: BENCH_WALLET_DURATION_MS (per load, default 5000, cut into BENCH_WALLET_SLICES slices, default 5),
 * BENCH_WALLET_CONCURRENCY (default 16).
 */
import { randomUUID } from 'node:crypto';
import { walletStream } from '../libs/domain/billing/events';
import type { CreditWallet } from '../libs/domain/billing/wallet.decider';
import type { EventStore, NewEvent } from '../libs/eventstore/src/event-store.port';
import { SqlEventStore } from '../libs/eventstore/src/sql/sql-event-store';
import { writeWallet } from '../usecases/billing/wallet-writes';
import { log, row, shortId, timedLoop, type Row } from './lib';

export interface WalletBenchOptions {
  pgUrl: string;
  durationMs: number;
  concurrency: number;
  wallets: number;
  /** How many alternating slices the duration is cut into (default 5). */
  slices: number;
}

const at = '2026-01-01T00:00:00.000Z';

export async function benchWallets(opts: WalletBenchOptions): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const id = shortId();
  const store = await SqlEventStore.postgres(opts.pgUrl, { schema: `bench_wallet_${id}`, poolSize: 10 });
  const metadata = { projectId: `bench-${id}`, actor: 'apikey:bench' };
  const credit = (projectId: string): CreditWallet => {
    const creditId = randomUUID();
    return { type: 'CreditWallet', projectId, currency: 'USD', amountCents: 100, creditId, source: 'top-up', reference: creditId, description: null, conversion: null, now: at };
  };
  // A round reads the stream once per attempt and once more for its positions: reads per credit.
  let reads = 0;
  const counted = { readStream: (s: string, o?: Parameters<EventStore['readStream']>[1]) => (reads++, store.readStream(s, o)), readSnapshot: store.readSnapshot.bind(store), writeSnapshot: store.writeSnapshot.bind(store), append: store.append.bind(store), appendMany: store.appendMany.bind(store) } as unknown as EventStore;
  const creditOnce = async (projectId: string) => {
    await writeWallet(counted, credit(projectId), { metadata: { ...metadata, requestId: randomUUID() } });
  };
  try {
    await store.append(`warmup-${id}`, [event('warmup', 0)], { expectedRevision: 'no_stream' });

    // The three loads alternate in slices (baseline, w1, w2, baseline, …) so that each sees the same
    // share of a shared machine's noise; each figure is its slices' operations over their seconds.
    const revs = new Array<number>(opts.concurrency).fill(-1);
    const streams = Array.from({ length: opts.concurrency }, (_, w) => `bench-${id}-${w}`);
    let next = 0;
    const loads = {
      bare: (w: number) =>
        store.append(streams[w], [event(streams[w], revs[w] + 1)], { expectedRevision: revs[w] < 0 ? 'no_stream' : revs[w] }).then((r) => {
          revs[w] = r.nextRevision;
        }),
      one: () => creditOnce(`one-${id}`),
      spread: () => creditOnce(`spread-${id}-${next++ % opts.wallets}`),
    };
    const totals = { bare: { ops: 0, seconds: 0, reads: 0 }, one: { ops: 0, seconds: 0, reads: 0 }, spread: { ops: 0, seconds: 0, reads: 0 } };
    for (let slice = 0; slice < opts.slices; slice++) {
      for (const name of ['bare', 'one', 'spread'] as const) {
        reads = 0;
        const r = await timedLoop(opts.concurrency, opts.durationMs / opts.slices, (w) => loads[name](w));
        totals[name].ops += r.ops;
        totals[name].seconds += r.seconds;
        totals[name].reads += reads;
      }
    }
    const bareRate = totals.bare.ops / totals.bare.seconds;
    const oneRate = totals.one.ops / totals.one.seconds;
    const oneRetries = totals.one.reads / Math.max(1, totals.one.ops);
    const oneEvents = (await store.readStream(walletStream(`one-${id}`, 'USD'))).length;
    const spreadRate = totals.spread.ops / totals.spread.seconds;
    const spreadRetries = totals.spread.reads / Math.max(1, totals.spread.ops);

    log(`wallet credits: 1 wallet ${Math.round(oneRate)}/s (${oneRetries.toFixed(2)} reads/credit, ${oneEvents} events at the end), ${opts.wallets} wallets ${Math.round(spreadRate)}/s (${spreadRetries.toFixed(2)} reads/credit); bare 1-event appends ${Math.round(bareRate)}/s`);
    const common = { unit: 'credits/s', baselineName: `bare 1-event append, ${opts.concurrency} writers`, baseline: bareRate, target: null, targetKind: null };
    return {
      rows: [
        row({ ...common, item: 'w1', metric: `wallet credits, 1 wallet (contention), ${opts.concurrency} writers`, value: oneRate, note: `${oneRetries.toFixed(2)} stream reads per credit` }),
        row({ ...common, item: 'w2', metric: `wallet credits, ${opts.wallets} wallets (spread), ${opts.concurrency} writers`, value: spreadRate, note: `${spreadRetries.toFixed(2)} stream reads per credit` }),
      ],
      details: { bareRate, oneRate, oneRetries, oneEvents, spreadRate, spreadRetries, durationMs: opts.durationMs, slices: opts.slices, concurrency: opts.concurrency },
    };
  } finally {
    await store.dropSchema().catch(() => undefined);
    await store.close();
  }
}

function event(streamId: string, seq: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'billing.WalletCredited.v1',
    data: { projectId: streamId, currency: 'USD', creditId: randomUUID(), amountCents: 100, balanceCents: 100 * (seq + 1), source: 'top-up', reference: randomUUID(), description: null, conversion: null, creditedAt: at },
    metadata: { projectId: 'bench', actor: 'apikey:bench', requestId: randomUUID(), schemaVersion: 1 },
  };
}
