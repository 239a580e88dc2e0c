import { Platform } from '../../../libs/runtime/src/platform';
import { testClock } from '../../../libs/runtime/src/test-clock';
import { CONTEXT_MODULES } from '../../../contexts/registrations';
import { IdentityService } from '../../api/src/identity/identity.service';
import { startGateway } from '../../gateway/src/start-gateway';
import { runMain } from './run-main';

/**
 * The gateway as its own process (`npm run start:gateway`) in a split deployment: HTTP only (ROLE=api,
 * a worker runs the projections) on the shared server engines, checking cloud credentials with the
 * API's own IdentityService.
 */
runMain(
  'gateway',
  async (config, logger) => {
    const platform = await Platform.open(config, logger, CONTEXT_MODULES, { clock: testClock() });
    await platform.start();
    const identity = new IdentityService(platform);
    const gateway = await startGateway(config, platform, logger, identity, identity.hasher);
    logger.info({ url: gateway.url, role: config.role }, `inference gateway listening on ${gateway.url}`);
    return [gateway, platform];
  },
  { ROLE: process.env.ROLE ?? 'api' },
);
