import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { toCloudEvent } from '../../../libs/messaging/src/cloudevents';
import { Platform } from '../../../libs/runtime/src/platform';
import { CONTEXT_MODULES, PROJECTIONS } from '../../../contexts/registrations';
import { ReadStoreCheckpointStore } from '../../../libs/subscriptions/src/checkpoint-store';
import { projectorName } from '../../../libs/subscriptions/src/document-projection';

const USAGE = `cloud-api CLI (uses the same configuration as the API: PROFILE, PG_URL, MONGO_URL, DATA_DIR, …)

  export [--from <position>] [--to <position>] [--stream <prefix>] [--type <prefix>]
        Writes the event history as NDJSON CloudEvents (position order) to stdout, for audit and
        billing analysis; secret-named fields are stripped as on the Kafka topics.
  status
        Head position of the event store and each subscription's checkpoint and lag.
  rebuild <projection>|all
        Replays the log into a fresh collection and switches reads to it (no downtime).
`;

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig(process.env, { ROLE: 'api' });
  const logger = createLogger({ level: 'warn', name: 'cloud-cli', destination: process.stderr as never });
  const platform = await Platform.open(config, logger, CONTEXT_MODULES);
  try {
    switch (command) {
      case 'export': {
        let from = Number(arg(args, '--from') ?? 0);
        const to = Number(arg(args, '--to') ?? Number.MAX_SAFE_INTEGER);
        const stream = arg(args, '--stream');
        const type = arg(args, '--type');
        if (!Number.isInteger(from) || from < 0 || !Number.isFinite(to)) throw new ConfigError('--from and --to take non-negative integer positions');
        for (;;) {
          const batch = await platform.events.readAll({ fromPosition: from, maxCount: 5000 });
          if (batch.length === 0) break;
          let out = '';
          for (const e of batch) {
            if (e.position > to) break;
            if (stream && !e.streamId.startsWith(stream)) continue;
            if (type && !e.type.startsWith(type)) continue;
            out += JSON.stringify(toCloudEvent(e)) + '\n';
          }
          if (out && !process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
          from = batch[batch.length - 1].position;
          if (from >= to) break;
        }
        return 0;
      }
      case 'status': {
        const head = await platform.events.headPosition();
        const checkpoints = new ReadStoreCheckpointStore(platform.reads);
        const names = [...PROJECTIONS.map((p) => projectorName(p)), 'saga:job-dispatcher', 'saga:batch-fanout', 'relay:kafka'];
        const subscriptions = await Promise.all(names.map(async (name) => ({ name, position: await checkpoints.load(name) })));
        process.stdout.write(
          `${JSON.stringify({ head, eventStore: config.eventStore.kind, readStore: config.readStore.kind, subscriptions: subscriptions.map((s) => ({ ...s, lagEvents: head - s.position })) })}\n`,
        );
        return 0;
      }
      case 'rebuild': {
        const name = args[0];
        if (!name) throw new ConfigError('rebuild needs a projection name, or `all`');
        await platform.projections.start();
        if (name === 'all') {
          const report = await platform.projections.rebuildAll();
          process.stdout.write(`${JSON.stringify({ events: report.events, ms: Math.round(report.ms), eventsPerSec: Math.round(report.eventsPerSec), projections: report.projections.map((r) => ({ projection: r.projection, collection: r.collection, docs: r.docs })) })}\n`);
          return 0;
        }
        const report = await platform.projections.rebuild(name);
        process.stdout.write(`${JSON.stringify(report)}\n`);
        return 0;
      }
      default:
        process.stderr.write(`unknown command ${command}\n${USAGE}`);
        return 2;
    }
  } finally {
    await platform.close();
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
