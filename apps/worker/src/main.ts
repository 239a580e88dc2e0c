import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { Platform } from '../../../libs/runtime/src/platform';
import { CONTEXT_MODULES } from '../../../contexts/registrations';

/**
 * The worker of a split deployment: runs every subscription (projections, sagas, the job executor,
 * the timers, relays) while API nodes run with ROLE=api and only serve HTTP.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, { ROLE: 'worker' });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name: 'cloud-worker' });
  if (config.readStore.kind === 'memory') {
    logger.warn('READ_STORE=memory: this worker projects into its own memory, which no API node can read; use MongoDB in a split deployment');
  }
  const platform = await Platform.open(config, logger, CONTEXT_MODULES);
  await platform.start();
  logger.info({ subscriptions: platform.allRunners().map((r) => r.name), eventStore: config.eventStore.kind, readStore: config.readStore.kind }, 'worker running');
  const shutdown = async () => {
    await platform.close().catch((err) => logger.error({ err }, 'error during shutdown'));
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((err) => {
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
