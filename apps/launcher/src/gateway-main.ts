import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { Platform } from '../../../libs/runtime/src/platform';
import { CONTEXT_MODULES } from '../../../contexts/registrations';
import { IdentityService } from '../../api/src/identity/identity.service';
import { startGateway } from '../../gateway/src/start-gateway';

/**
 * The gateway as its own process (`npm run start:gateway`) in a split deployment: HTTP only (ROLE=api,
 * a worker runs the projections) on the shared server engines, checking cloud credentials with the
 * API's own IdentityService.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, { ROLE: process.env.ROLE ?? 'api' });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name: 'gateway' });
  const platform = await Platform.open(config, logger, CONTEXT_MODULES);
  await platform.start();
  const identity = new IdentityService(platform);
  const gateway = await startGateway(config, platform, logger, identity, identity.hasher);
  logger.info({ url: gateway.url, role: config.role }, `inference gateway listening on ${gateway.url}`);
  const shutdown = async () => {
    await gateway.close().catch((err) => logger.error({ err }, 'error during gateway shutdown'));
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
