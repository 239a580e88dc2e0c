import { clusters } from '../../../../libs/domain/kubernetes/cluster.resource';
import { clusterResource } from '../../../../usecases/kubernetes/kubernetes';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';

/**
 * Managed Kubernetes (spec 4.10, DECISIONS 14): create with node pools (202, a cluster.create job),
 * list, DELETE answering 204 with the cluster.delete job behind it. The kubeconfig and the versions
 * are in kubernetes.routes.ts; the lookups are the use case's (usecases/kubernetes).
 */
export const clusterRoutes: JobResourceRoutes<typeof clusters.schema> = {
  ...clusterResource,
  path: '/v1/kubernetes/clusters',
  tag: 'Kubernetes',
  permission: 'kubernetes',
  deleteStatus: 204,
  summaries: {
    list: 'List the Kubernetes clusters of the project',
    get: 'Get a Kubernetes cluster (an addition: the spec has no single-cluster route)',
    create: 'Create a Kubernetes cluster with its node pools (202, a cluster.create job)',
    delete: 'Delete a Kubernetes cluster (204; a cluster.delete job runs behind it, the cluster lists as deleting until done)',
  },
  body: clusters.schema.omit({ credentialRef: true }),
};
export const ClustersController = jobResourceController(clusterRoutes);
