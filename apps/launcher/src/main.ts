import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { startServer } from '../../api/src/server';
import { startGateway } from '../../gateway/src/start-gateway';

/**
 * `npm start`: the cloud API and, beside it on GATEWAY_PORT, the inference gateway (DECISIONS 19), in
 * one process on one platform (the embedded event store is a single process's). The only module that
 * may import two apps (.dependency-cruiser.cjs): it composes, it serves nothing of its own.
 */
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
  const server = await startServer(config, logger);
  logger.info({ url: server.url, httpUrl: server.httpUrl, profile: config.profile, dataDir: config.dataDir, bootstrapFile: server.bootstrapFile }, `cloud provisioning API listening on ${server.url}`);
  const gateway = await startGateway(config, server.platform, logger.child({ name: 'gateway' }), server.identity, server.identity.hasher);
  logger.info({ url: gateway.url }, `inference gateway listening on ${gateway.url}`);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    await gateway.close().catch((err) => logger.error({ err }, 'error during gateway shutdown'));
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
