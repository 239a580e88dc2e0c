import 'reflect-metadata';
import type pino from 'pino';
import { ConfigError, loadConfig, type AppConfig } from '../../../libs/config/src/config';
import { createLogger } from '../../../libs/http/src/logging';
import { enableDefaultMetrics } from '../../../libs/http/src/metrics';

/**
 * A launcher's process: the configuration (exit 2 with its message when invalid), the logger, what
 * `start` opens, closed in order on SIGINT or SIGTERM (exit 1 with the stack when starting fails).
 */
export function runMain(name: string, start: (config: AppConfig, logger: pino.Logger) => Promise<{ close(): Promise<void> }[]>, overrides: Record<string, string> = {}): void {
  let config: AppConfig;
  try {
    config = loadConfig(process.env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name });
  enableDefaultMetrics();
  start(config, logger).then(
    (parts) => {
      let closing = false;
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        logger.info({ signal }, 'shutting down');
        for (const part of parts) await part.close().catch((err) => logger.error({ err }, 'error during shutdown'));
        process.exit(0);
      };
      process.on('SIGINT', () => void shutdown('SIGINT'));
      process.on('SIGTERM', () => void shutdown('SIGTERM'));
    },
    (err) => {
      process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
