import type { Feature } from '../common/resource-lifecycle';
import { ServersController } from './servers.controller';

/** Servers and backups: projections are registered in platform.ts (the executor needs them too). */
export const serversFeature: Feature = { controllers: [ServersController], projections: [] };
