import { SingleBar } from 'cli-progress';
import type { RecordedEvent } from '../../../libs/eventstore/src/event-store.port';
import type { CloudEvent } from '../../../libs/messaging/src/cloudevents';
import { dataScope, type Mode } from '../../../libs/domain/shared/scope';
import { historyCloudEvent, scopeOfEvent } from '../../../projections/event-index/event-index.projection';

/** Which events the analysts' commands take: type prefixes, one project in one mode, a time window. */
export interface EventSelection {
  types?: string[];
  project?: string;
  mode: Mode;
  /** ISO instants, inclusive (commit time). */
  from?: string;
  to?: string;
}

export function selector(s: EventSelection): (e: RecordedEvent) => boolean {
  const scope = s.project ? dataScope(s.project, s.mode) : undefined;
  return (e) =>
    (!s.types?.length || s.types.some((t) => e.type.startsWith(t))) &&
    (scope === undefined || scopeOfEvent(e) === scope) &&
    (s.from === undefined || e.recordedAt >= s.from) &&
    (s.to === undefined || e.recordedAt <= s.to);
}

/** The CloudEvent of the history (secrets stripped as on the topics, the test scope bared), as the API's /v1/events answers it. */
export const cloudEventOf = (e: RecordedEvent): CloudEvent => historyCloudEvent(e);

export const CSV_COLUMNS = ['position', 'time', 'type', 'subject', 'id', 'livemode', 'correlationid', 'data'] as const;

/** One RFC 4180 field: quoted when it holds a comma, a quote or a line break. */
const field = (v: unknown): string => {
  const s = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const csvRow = (e: CloudEvent): string => `${CSV_COLUMNS.map((c) => field(e[c])).join(',')}\n`;
export const csvHeader = `${CSV_COLUMNS.join(',')}\n`;

/**
 * A progress bar on stderr: shown when asked (`--progress`), never when refused (`--no-progress`),
 * else when a person watches (stderr is a terminal) and the output is not on that terminal itself
 * (`> file` or `| tool`); none in pipelines, CI logs or tests.
 */
export function progressBar(asked: boolean | undefined, label: string, total: number, outputOnScreen: boolean): SingleBar | null {
  const show = asked ?? (process.stderr.isTTY === true && !outputOnScreen);
  if (!show) return null;
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | position {value}/{total} | {eta_formatted} left`,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 1000,
    hideCursor: true,
  });
  bar.start(Math.max(total, 1), 0);
  return bar;
}

export async function write(out: string): Promise<void> {
  if (out && !process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
}
