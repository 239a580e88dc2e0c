import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { ManualClock } from '../../../libs/runtime/src/clock';
import { startServer } from './server';

/**
 * The clock of a server a test spawned (test/support/spawn-server.ts), which the test moves instead
 * of waiting: only under NODE_ENV=test with TEST_CLOCK_OFFSET_MS set and an IPC channel to the parent
 * process, none of which a deployed server has; otherwise the system clock. It starts at real time
 * plus that offset (a restarted server resumes the time its test had moved to), and each
 * `{ advanceClockMs }` message moves it forward, answered `{ clockAdvancedMs }` once done.
 */
function testClock(env = process.env): ManualClock | undefined {
  const offset = env.TEST_CLOCK_OFFSET_MS;
  if (env.NODE_ENV !== 'test' || offset === undefined || !process.send) return undefined;
  if (!/^\d{1,15}$/.test(offset)) throw new Error(`TEST_CLOCK_OFFSET_MS must be a whole number of milliseconds, not ${JSON.stringify(offset)}`);
  const clock = new ManualClock();
  clock.advance(Number(offset));
  process.on('message', (m: { advanceClockMs?: unknown }) => {
    const ms = m?.advanceClockMs;
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) return;
    clock.advance(ms);
    process.send!({ clockAdvancedMs: ms });
  });
  return clock;
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name: 'cloud-api' });
  const clock = testClock();
  const server = await startServer(config, logger, clock ? { clock } : {});
  logger.info(
    { url: server.url, httpUrl: server.httpUrl, profile: config.profile, eventStore: config.eventStore.kind, readStore: config.readStore.kind, dataDir: config.dataDir, bootstrapFile: server.bootstrapFile },
    `cloud provisioning API listening on ${server.url}`,
  );
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    await server.close().catch((err) => logger.error({ err }, 'error during shutdown'));
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
