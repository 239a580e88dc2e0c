import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';

export type ModelStatus = 'deploying' | 'active' | 'stopping' | 'stopped' | 'starting' | 'scaling' | 'deleting' | 'deleted' | 'failed';
export type ModelOperation = 'create' | 'stop' | 'start' | 'scale' | 'delete';

/** Spec 2.12's framework identifiers (neutral stand-ins for the serving engines). */
export const MODEL_FRAMEWORKS = ['framework_1', 'framework_2', 'framework_3', 'framework_4'] as const;
export const MAX_MODEL_REPLICAS = 100;

export const modelStream = (id: string) => `model-${id}`;

const replicas = z.number().int().min(1).max(MAX_MODEL_REPLICAS);

/**
 * AI models (spec 2.12, 3.3, 4.16, DECISIONS 17): a model served on one of the project's active
 * Kubernetes clusters by the multi-cloud provider. The deploy is the create's job (`model.deploy`);
 * `active` brings the provider's `endpointUrl` and `multicloudServiceName`; a failed operation leaves
 * the model `failed` (spec 3.3), not the `error` of the other job-backed resources.
 */
export const modelSchema = z.object({
  clusterId: z.string().min(1).max(64).describe('An active Kubernetes cluster of the project'),
  name: z.string().min(1).max(100),
  framework: z.enum(MODEL_FRAMEWORKS),
  modelId: z.string().min(1).max(255).describe("The model to serve (e.g. a model hub's id)"),
  replicas: replicas.default(1),
  gpuType: z.string().min(1).max(64).nullable().default(null),
  port: z.number().int().min(1).max(65535).nullable().default(null).describe('The port the serving container listens on'),
  tags: tagsSchema.default([]),
});
export type ModelFields = z.output<typeof modelSchema>;

/** `POST /v1/models/{id}/actions`: `stop`, `start`, or `scale` with `replicas`. */
export const modelActionSchema = z
  .object({
    action: z.enum(['stop', 'start', 'scale']),
    replicas: replicas.optional().describe('The new replica count (scale only; required there)'),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'scale' && body.replicas === undefined) ctx.addIssue({ code: 'custom', path: ['replicas'], message: 'replicas is required to scale' });
    if (body.action !== 'scale' && body.replicas !== undefined) ctx.addIssue({ code: 'custom', path: ['replicas'], message: `replicas applies to scale only, not ${body.action}` });
  });

export const models: JobResource<typeof modelSchema, ModelOperation, ModelStatus> = {
  context: 'ai',
  name: 'Model',
  label: 'Model',
  kind: 'model',
  stream: modelStream,
  schema: modelSchema,
  provided: z.object({
    endpointUrl: z.string().nullable().describe('Where the model serves requests, while it is active'),
    multicloudServiceName: z.string().nullable().describe("The multi-cloud provider's name of the service"),
  }),
  operations: {
    create: { from: [], transient: 'deploying', final: 'active' },
    stop: { from: ['active'], transient: 'stopping', final: 'stopped' },
    start: { from: ['stopped'], transient: 'starting', final: 'active' },
    scale: { from: ['active'], transient: 'scaling', final: 'active' },
    delete: { from: ['active', 'stopped', 'failed'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  failed: 'failed',
  jobNames: { create: 'deploy' },
  rules: {
    scale: (_fields, args) => (replicas.safeParse(args.replicas).success ? null : new DomainError('BAD_REQUEST', `replicas must be an integer from 1 to ${MAX_MODEL_REPLICAS}`)),
  },
  complete: { scale: (fields, args) => ({ ...fields, replicas: Number(args.replicas) }) },
};

/**
 * The cluster rule of a deploy (DECISIONS 17): a cluster of the project (404 otherwise, another
 * project's included) that is active (409 INVALID_STATE naming both statuses).
 */
export function modelClusterRefusal(clusterId: string, cluster: { projectId: string; status: string } | null, projectId: string): DomainError | null {
  if (!cluster || cluster.projectId !== projectId) return new DomainError('NOT_FOUND', `Cluster ${clusterId} not found`);
  if (cluster.status !== 'active') return new DomainError('INVALID_STATE', `Cluster ${clusterId} is ${cluster.status}; a model deploys only to an active cluster`);
  return null;
}
