import { startServer } from '../../api/src/server';
import { startGateway } from '../../gateway/src/start-gateway';
import { runMain } from './run-main';

/**
 * `npm start`: the cloud API and, beside it on GATEWAY_PORT, the inference gateway (DECISIONS 19), in
 * one process on one platform (the embedded event store is a single process's). The only app that
 * may import two apps (.dependency-cruiser.cjs): it composes, it serves nothing of its own.
 */
runMain('cloud-api', async (config, logger) => {
  const server = await startServer(config, logger);
  logger.info({ url: server.url, httpUrl: server.httpUrl, profile: config.profile, dataDir: config.dataDir, bootstrapFile: server.bootstrapFile }, `cloud provisioning API listening on ${server.url}`);
  const gateway = await startGateway(config, server.platform, logger.child({ name: 'gateway' }), server.identity, server.identity.hasher);
  logger.info({ url: gateway.url }, `inference gateway listening on ${gateway.url}`);
  return [gateway, server];
});
