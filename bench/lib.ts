/** Shared helpers of the bench: engine URLs, timing, percentiles, the result table. */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';

export interface Engines {
  pgUrl: string;
  mongoUrl: string;
  redisUrl: string;
  kafkaBrokers: string;
}

/** URLs from the environment (scripts/bench.sh exports `engines.sh env`), else the engines.sh defaults. */
export function engines(): Engines {
  return {
    pgUrl: process.env.PG_URL || 'postgres://cloud:cloud@127.0.0.1:55432/cloud',
    mongoUrl: process.env.MONGO_URL || 'mongodb://127.0.0.1:57017/cloud',
    redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:56379',
    kafkaBrokers: process.env.KAFKA_BROKERS || '127.0.0.1:59092',
  };
}

/** Short unique id for schema / database / topic names of one bench run. */
export function shortId(): string {
  return randomUUID().replace(/-/g, '').slice(0, 10);
}

export function now(): number {
  return performance.now();
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export interface Row {
  item: string;
  metric: string;
  unit: string;
  value: number;
  baselineName: string;
  baseline: number | null;
  /** value / baseline (for latencies: baseline / value, so > 1 is always "better than baseline"). */
  ratio: number | null;
  /** Target: a ratio (e.g. 0.5), an absolute floor (e.g. 20000 ev/s) or an absolute ceiling (`atMost`, e.g. p99 <= 50 ms), see targetKind. */
  target: number | null;
  targetKind: 'ratio' | 'absolute' | 'atMost' | null;
  met: boolean | null;
  note?: string;
}

export function row(r: Omit<Row, 'ratio' | 'met'> & { lowerIsBetter?: boolean }): Row {
  const { lowerIsBetter, ...rest } = r;
  const ratio = r.baseline && r.value ? (lowerIsBetter ? r.baseline / r.value : r.value / r.baseline) : null;
  let met: boolean | null = null;
  if (r.target !== null && r.targetKind === 'ratio' && ratio !== null) met = ratio >= r.target;
  if (r.target !== null && r.targetKind === 'absolute') met = r.value >= r.target;
  if (r.target !== null && r.targetKind === 'atMost') met = r.value <= r.target;
  return { ...rest, ratio, met };
}

function fmt(n: number | null, unit = ''): string {
  if (n === null || Number.isNaN(n)) return '-';
  if (unit === 'ms') return n < 10 ? n.toFixed(2) : n.toFixed(1);
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);
}

export function formatTable(rows: Row[]): string {
  const head = ['#', 'metric', 'value', 'baseline', 'ratio', 'target', 'ok'];
  const lines = rows.map((r) => [
    r.item,
    `${r.metric} [${r.unit}]`,
    fmt(r.value, r.unit),
    r.baseline === null ? '-' : `${fmt(r.baseline, r.unit)} (${r.baselineName})`,
    r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(0)}%`,
    r.target === null ? '-' : r.targetKind === 'ratio' ? `>= ${(r.target * 100).toFixed(0)}%` : r.targetKind === 'atMost' ? `<= ${fmt(r.target, r.unit)}` : `>= ${fmt(r.target)}`,
    r.met === null ? '' : r.met ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const sep = widths.map((w) => '-'.repeat(w)).join('-+-');
  const render = (cells: string[]) => cells.map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ');
  return [render(head), sep, ...lines.map(render)].join('\n');
}

/** Runs `workers` loops calling `op` until `durationMs` elapsed (or `maxOps` done); returns ops done and seconds. */
export async function timedLoop(
  workers: number,
  durationMs: number,
  op: (worker: number, i: number) => Promise<number | void>,
  maxOps = Number.MAX_SAFE_INTEGER,
): Promise<{ ops: number; units: number; seconds: number }> {
  const started = now();
  const deadline = started + durationMs;
  let ops = 0;
  let units = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; now() < deadline && ops < maxOps; i++) {
        ops++;
        const u = await op(w, i);
        units += typeof u === 'number' ? u : 1;
      }
    }),
  );
  return { ops, units, seconds: (now() - started) / 1000 };
}

export function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** CPU seconds per process group (from /proc), to tell what a figure is bound by. Linux only; empty elsewhere. */
export type CpuSnapshot = Map<number, { group: string; ticks: number }>;

const CLK_TCK = 100;

function groupOf(pid: number, comm: string): string | null {
  if (pid === process.pid) return 'bench/api node';
  if (comm === 'node') return 'other node';
  if (comm.startsWith('ferretdb')) return 'ferretdb';
  if (comm === 'postgres') return 'postgres';
  if (comm === 'java') return 'kafka';
  if (comm.startsWith('redis')) return 'redis';
  return null;
}

export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((d: string) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const p of pids) {
    try {
      const stat: string = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const group = groupOf(Number(p), comm);
      if (group) out.set(Number(p), { group, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // process gone
    }
  }
  return out;
}

/** CPU seconds per group between two snapshots (processes seen in `after`; new ones count from 0). */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot, labels: Record<number, string> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [pid, a] of after) {
    const b = before.get(pid)?.ticks ?? 0;
    const group = labels[pid] ?? a.group;
    out[group] = (out[group] ?? 0) + (a.ticks - b) / CLK_TCK;
  }
  for (const k of Object.keys(out)) {
    out[k] = Math.round(out[k] * 10) / 10;
    if (out[k] === 0) delete out[k];
  }
  return out;
}

/** Machine-wide busy fraction of all CPUs over `ms`, from /proc/stat (null where there is none). */
async function busyFraction(ms: number): Promise<number | null> {
  const read = (): [number, number] | null => {
    try {
      const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
      const v = line.trim().split(/\s+/).slice(1).map(Number);
      const idle = v[3] + (v[4] ?? 0);
      return [v.reduce((a, b) => a + b, 0), idle];
    } catch {
      return null;
    }
  };
  const a = read();
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  if (!a || !b || b[0] === a[0]) return null;
  return 1 - (b[1] - a[1]) / (b[0] - a[0]);
}

/**
 * Waits (up to `maxMs`) until the machine is quiet: the servers keep working after an item ends
 * (autovacuum of dropped read models, Kafka deleting topics, FerretDB's collector), and an item
 * started on top of that measures the previous item's leftovers. Returns what it waited.
 */
export async function quiesce(maxMs = 60_000, threshold = 0.15): Promise<{ waitedMs: number; busy: number | null }> {
  const started = performance.now();
  let busy: number | null = null;
  while (performance.now() - started < maxMs) {
    busy = await busyFraction(1000);
    if (busy === null || busy < threshold) break;
  }
  return { waitedMs: Math.round(performance.now() - started), busy };
}
