import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { enableDefaultMetrics } from '../../../libs/http/src/metrics';
import { testClock } from '../../../libs/runtime/src/test-clock';
import { startServer } from './server';

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
  enableDefaultMetrics();
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
