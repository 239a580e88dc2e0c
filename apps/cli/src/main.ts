import 'reflect-metadata';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type AppConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { toCloudEvent } from '../../../libs/messaging/src/cloudevents';
import { Platform } from '../../../libs/runtime/src/platform';
import { CONTEXT_MODULES, PROJECTIONS } from '../../../contexts/registrations';
import { ReadStoreCheckpointStore } from '../../../libs/subscriptions/src/checkpoint-store';
import { projectorName } from '../../../libs/subscriptions/src/document-projection';
import { dataScope, type Mode } from '../../../libs/domain/shared/scope';
import { usageMetersProjection } from '../../../projections/usage-meters/usage-meters.projection';
import { projectMeters, usageOf } from '../../../usecases/invoicing/project-usage';
import { cloudEventOf, csvHeader, csvRow, progressBar, selector, write, type EventSelection } from './history';

const position = (v: string): number => {
  if (!/^\d{1,15}$/.test(v)) throw new InvalidArgumentError('a position is a whole number');
  return Number(v);
};
const instant = (v: string): string => {
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(t)) throw new InvalidArgumentError('an ISO 8601 date or date-time (2026-11-01, 2026-11-01T12:00:00Z)');
  return new Date(t).toISOString();
};
/** The end of a window: a date means the end of that day. */
const instantEnd = (v: string): string => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(Date.parse(instant(v)) + 86_399_999).toISOString() : instant(v));
const list = (v: string): string[] => v.split(',').map((s) => s.trim()).filter(Boolean);
const scopeOptions = (c: Command) =>
  c
    .option('--type <prefixes>', 'event types or prefixes, comma separated (compute,billing.Invoice)', list)
    .option('--project <id>', "one project's events")
    .addOption(new Option('--mode <mode>', 'with --project: its live or test-mode events').choices(['live', 'test']).default('live'));

interface ScopeOptions {
  type?: string[];
  project?: string;
  mode: Mode;
}
const selectionOf = (o: ScopeOptions & { from?: string; to?: string }): EventSelection => ({ types: o.type, project: o.project, mode: o.mode, from: o.from, to: o.to });

/** Opens the engines the configuration names (PROFILE, PG_URL, MONGO_URL, DATA_DIR, …), runs `fn`, closes them. */
async function withPlatform<T>(fn: (platform: Platform, config: AppConfig) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, { ROLE: 'api' });
  const logger = createLogger({ level: 'warn', name: 'cloud-cli', destination: process.stderr as never });
  const platform = await Platform.open(config, logger, CONTEXT_MODULES);
  try {
    return await fn(platform, config);
  } finally {
    await platform.close();
  }
}

const program = new Command('cli')
  .description('cloud-api CLI: uses the same configuration as the API (PROFILE, PG_URL, MONGO_URL, DATA_DIR, …)')
  .showHelpAfterError()
  .exitOverride();

program
  .command('export')
  .description("Writes the whole event log as NDJSON CloudEvents (position order) to stdout, secret-named fields stripped as on the topics (the operator's dump; analysts: `events export`)")
  .option('--from <position>', 'after this position', position, 0)
  .option('--to <position>', 'up to this position', position)
  .option('--stream <prefix>', 'streams whose name starts so')
  .option('--type <prefix>', 'types that start so')
  .action((o: { from: number; to?: number; stream?: string; type?: string }) =>
    withPlatform(async (platform) => {
      const to = o.to ?? Number.MAX_SAFE_INTEGER;
      for (let from = o.from; ; ) {
        const batch = await platform.events.readAll({ fromPosition: from, maxCount: 5000 });
        if (batch.length === 0) break;
        let out = '';
        for (const e of batch) {
          if (e.position > to) break;
          if (o.stream && !e.streamId.startsWith(o.stream)) continue;
          if (o.type && !e.type.startsWith(o.type)) continue;
          out += JSON.stringify(toCloudEvent(e)) + '\n';
        }
        await write(out);
        from = batch[batch.length - 1]!.position;
        if (from >= to) break;
      }
    }),
  );

program
  .command('status')
  .description("Head position of the event store and each subscription's checkpoint and lag (JSON)")
  .action(() =>
    withPlatform(async (platform, config) => {
      const head = await platform.events.headPosition();
      const checkpoints = new ReadStoreCheckpointStore(platform.reads);
      const names = [...PROJECTIONS.map((p) => projectorName(p)), 'saga:job-dispatcher', 'saga:batch-fanout', 'relay:kafka'];
      const subscriptions = await Promise.all(names.map(async (name) => ({ name, position: await checkpoints.load(name) })));
      await write(`${JSON.stringify({ head, eventStore: config.eventStore.kind, readStore: config.readStore.kind, subscriptions: subscriptions.map((s) => ({ ...s, lagEvents: head - s.position })) })}\n`);
    }),
  );

const rebuild = (name: string, o: { progress?: boolean }) =>
  withPlatform(async (platform) => {
    await platform.projections.start();
    const bar = progressBar(o.progress, name, await platform.events.headPosition(), false);
    const onProgress = (p: number) => bar?.update(Math.min(p, bar.getTotal()));
    try {
      if (name === 'all') {
        const report = await platform.projections.rebuildAll(undefined, { onProgress });
        bar?.stop();
        await write(`${JSON.stringify({ events: report.events, ms: Math.round(report.ms), eventsPerSec: Math.round(report.eventsPerSec), projections: report.projections.map((r) => ({ projection: r.projection, collection: r.collection, docs: r.docs })) })}\n`);
      } else {
        const report = await platform.projections.rebuild(name, { onProgress });
        bar?.stop();
        await write(`${JSON.stringify(report)}\n`);
      }
    } finally {
      bar?.stop();
    }
  });
for (const [command, what] of [
  ['rebuild', 'Replays the log into a fresh collection and switches reads to it (no downtime); prints the report (JSON)'],
  ['replay', 'The same as rebuild, with a progress bar of the log read so far on a terminal'],
] as const) {
  program
    .command(`${command} <projection>`)
    .description(`${what}. <projection>: a read model's name (see \`status\`), or \`all\` for every one in one pass`)
    .option('--progress', 'show the progress bar even when stderr is not a terminal')
    .option('--no-progress', 'never show it')
    .action((name: string, o: { progress?: boolean }) => rebuild(name, o));
}

const events = program.command('events').description("The event history, as GET /v1/events shows it (each event the topics' CloudEvent, secrets stripped)");

scopeOptions(
  events
    .command('export')
    .description('Writes the history in log order to stdout, as NDJSON CloudEvents or CSV, with a progress bar on a terminal (none when piped)')
    .addOption(new Option('--format <format>', 'output format').choices(['ndjson', 'csv']).default('ndjson'))
    .option('--from <time>', 'events committed at or after this instant (ISO 8601 date or date-time)', instant)
    .option('--to <time>', 'events committed at or before this instant (a date: to the end of that day)', instantEnd)
    .option('--after <position>', 'events after this position', position, 0)
    .option('--progress', 'show the progress bar even when stderr is not a terminal')
    .option('--no-progress', 'never show it'),
).action((o: ScopeOptions & { from?: string; to?: string; format: 'ndjson' | 'csv'; after: number; progress?: boolean }) =>
  withPlatform(async (platform) => {
    const head = await platform.events.headPosition();
    const bar = progressBar(o.progress, 'export', head, process.stdout.isTTY === true);
    const take = selector(selectionOf(o));
    let count = 0;
    try {
      if (o.format === 'csv') await write(csvHeader);
      for (let from = o.after; from < head; ) {
        const batch = await platform.events.readAll({ fromPosition: from, maxCount: 5000 });
        if (batch.length === 0) break;
        let out = '';
        for (const e of batch) {
          if (e.position > head || (o.to !== undefined && e.recordedAt > o.to)) break;
          if (!take(e)) continue;
          const ce = cloudEventOf(e);
          out += o.format === 'csv' ? csvRow(ce) : `${JSON.stringify(ce)}\n`;
          count += 1;
        }
        await write(out);
        from = batch[batch.length - 1]!.position;
        bar?.update(Math.min(from, head));
        if (o.to !== undefined && batch[batch.length - 1]!.recordedAt > o.to) break;
      }
    } finally {
      bar?.stop();
    }
    process.stderr.write(bar ? `${count} events\n` : '');
  }),
);

scopeOptions(
  events
    .command('tail')
    .description('Follows the history live, one NDJSON CloudEvent a line (its `position` is where to resume: --after); Ctrl-C stops')
    .option('--after <position>', 'start right after this position (default: at the next event)', position)
    .option('--max <count>', 'stop after this many events', position),
).action((o: ScopeOptions & { after?: number; max?: number }) =>
  withPlatform(async (platform) => {
    const head = await platform.events.headPosition();
    if (o.after !== undefined && o.after > head) throw new ConfigError(`--after ${o.after} is beyond the newest event (${head})`);
    const take = selector(selectionOf(o));
    let seen = 0;
    await new Promise<void>((resolve) => {
      const stop = () => void subscription.stop().then(resolve);
      const subscription = platform.events.subscribeToAll({
        fromPosition: o.after ?? head,
        onEvents: async (batch) => {
          let out = '';
          for (const e of batch) {
            if (o.max !== undefined && seen >= o.max) break;
            if (!take(e)) continue;
            out += `${JSON.stringify(cloudEventOf(e))}\n`;
            seen += 1;
          }
          await write(out);
          if (o.max !== undefined && seen >= o.max) stop();
        },
        onError: (err) => process.stderr.write(`tail: ${String(err)}; retrying\n`),
      });
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }),
);

program
  .command('usage')
  .description("A project's compute usage per UTC day (hours started while running, and their cost), from the usage meters, as GET /v1/billing/usage counts it")
  .requiredOption('--project <id>', 'the project')
  .addOption(new Option('--mode <mode>', 'live or test-mode usage').choices(['live', 'test']).default('live'))
  .option('--from <date>', 'first day (default: the first of the month of --to)', instant)
  .option('--to <date>', 'last day, inclusive (default: today)', instant)
  .addOption(new Option('--format <format>', 'output format').choices(['csv', 'json']).default('csv'))
  .action((o: { project: string; mode: Mode; from?: string; to?: string; format: 'csv' | 'json' }) =>
    withPlatform(async (platform, config) => {
      const meters = await platform.projections.collection(usageMetersProjection);
      if (config.readStore.kind === 'memory') {
        // The embedded read store lives in memory: fold the log into it first.
        await platform.projections.start();
        const head = await platform.events.headPosition();
        while (!(await platform.waitForProjections(head, [usageMetersProjection.name])));
      }
      const now = platform.clock.now();
      const end = o.to ? Date.parse(o.to) + 86_400_000 : now;
      const first = new Date(end - 1);
      const start = o.from ? Date.parse(o.from) : Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 1);
      if (end <= start) throw new ConfigError('--to must not be before --from');
      const usage = usageOf(await projectMeters(meters, dataScope(o.project, o.mode), end), start, end, now);
      const byDay = new Map<string, { date: string; hours: number; costCents: number; resources: number }>();
      for (const u of usage)
        for (const d of u.days) {
          const day = byDay.get(d.date) ?? byDay.set(d.date, { date: d.date, hours: 0, costCents: 0, resources: 0 }).get(d.date)!;
          day.hours += d.hours;
          day.costCents += d.costCents;
          day.resources += 1;
        }
      const days = [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
      if (o.format === 'json') await write(`${JSON.stringify({ project: o.project, mode: o.mode, currency: 'USD', startDate: new Date(start).toISOString(), endDate: new Date(end).toISOString(), days })}\n`);
      else await write(`date,hours,cost_cents,resources\n${days.map((d) => `${d.date},${d.hours},${d.costCents},${d.resources}\n`).join('')}`);
    }),
  );

program
  .parseAsync(process.argv)
  .then(() => process.exit(0))
  .catch((err) => {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    process.stderr.write(`${err instanceof ConfigError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
