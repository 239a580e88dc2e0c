import type { Feature } from '../common/resource-lifecycle';
import { InstancesController } from './instances.controller';
import { JobsController } from '../jobs/jobs.controller';

/** Instances and jobs: projections are registered in platform.ts (the executor needs them too). */
export const instancesFeature: Feature = { controllers: [InstancesController, JobsController], projections: [] };
