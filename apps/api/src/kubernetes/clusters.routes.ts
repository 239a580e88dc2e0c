import { modeOfScope } from '../../../../libs/domain/shared/scope';
import { randomBytes } from 'node:crypto';
import { clusters, type ClusterFields } from '../../../../libs/domain/kubernetes/cluster.resource';
import { clusterVersionRefusal } from '../../../../libs/domain/kubernetes/kubernetes-versions';
import type { NodePool } from '../../../../libs/domain/kubernetes/node-pools';
import { badRequest } from '../../../../libs/application/src/errors';
import { clustersProjection } from '../../../../projections/clusters/clusters.projection';
import { modelsProjection } from '../../../../projections/models/models.projection';
import { CatalogValidation } from '../../../../usecases/catalog/catalog-validation';
import { jobResourceController, type JobResourceRoutes } from '../common/job-resource.routes';
import { offeredPlan } from '../common/offered-plan';

/**
 * Managed Kubernetes (spec 4.10, DECISIONS 14): create with node pools (202, a cluster.create job),
 * list, DELETE answering 204 with the cluster.delete job behind it. The kubeconfig and the versions
 * are in kubernetes.routes.ts.
 */
export const clusterRoutes: JobResourceRoutes<typeof clusters.schema> = {
  resource: clusters,
  projection: clustersProjection,
  type: 'kubernetes-clusters',
  path: '/v1/kubernetes/clusters',
  tag: 'Kubernetes',
  permission: 'kubernetes',
  capability: 'kubernetes',
  deleteStatus: 204,
  summaries: {
    list: 'List the Kubernetes clusters of the project',
    get: 'Get a Kubernetes cluster (an addition: the spec has no single-cluster route)',
    create: 'Create a Kubernetes cluster with its node pools (202, a cluster.create job)',
    delete: 'Delete a Kubernetes cluster (204; a cluster.delete job runs behind it, the cluster lists as deleting until done)',
  },
  body: clusters.schema.omit({ credentialRef: true }),
  // The region and each pool's plan in the provider's catalog (422), the version among the provider's (400).
  async prepare({ platform, provider, body, pointerPrefix }) {
    const catalog = new CatalogValidation(platform);
    const region = await catalog.resolveRegion(provider.name, String(body.region));
    const offered = (await platform.drivers.get(provider.name, modeOfScope(provider.projectId)).kubernetesVersions?.()) ?? [];
    const refusal = clusterVersionRefusal(String(body.version), offered);
    if (refusal) throw badRequest([{ detail: refusal.message, source: { pointer: `${pointerPrefix}/version` } }]);
    const nodePools: NodePool[] = [];
    for (const [i, pool] of (body.nodePools as NodePool[]).entries()) {
      const plan = await offeredPlan(catalog, provider.name, region.slug, pool.plan, `${pointerPrefix}/nodePools/${i}/plan`);
      nodePools.push({ ...pool, plan: plan.slug });
    }
    return { ...(body as ClusterFields), region: region.slug, nodePools, credentialRef: null };
  },
  // The AI models on the cluster, which its delete rule refuses to leave behind (409).
  async prepareDelete({ platform, projectId, doc }) {
    const { total } = await (await platform.projections.collection(modelsProjection)).find({ filter: { clusterId: doc.id, projectId }, limit: 1 });
    return { models: total };
  },
  // The kubeconfig's per-cluster credential: made here, kept only in the vault.
  async secrets({ platform, projectId }) {
    const credentialRef = await platform.vault.put(projectId, { token: randomBytes(32).toString('base64url') });
    return { fields: { credentialRef }, reveal: {} };
  },
  // Its node pools at their plans' catalog prices (DECISIONS 22).
  async price({ platform, provider, body, pointerPrefix }) {
    const catalog = new CatalogValidation(platform);
    const nodePools = await Promise.all(body.nodePools.map(async (pool, i) => ({ plan: await offeredPlan(catalog, provider.name, body.region, pool.plan, `${pointerPrefix}/nodePools/${i}/plan`), count: pool.count })));
    return { resourceType: 'cluster', nodePools };
  },
};
export const ClustersController = jobResourceController(clusterRoutes);
