import { instanceOperations } from '../instance-operations/instance-operations';
import { serverOperations } from '../server-operations/server-operations';
import type { AnyJobBackedResource } from '../../libs/runtime/src/job-ports';

/** Every job-backed resource, by the jobs' `resourceType`: one line each. */
export const JOB_BACKED_RESOURCES: Record<string, AnyJobBackedResource> = {
  instance: instanceOperations,
  server: serverOperations,
};
