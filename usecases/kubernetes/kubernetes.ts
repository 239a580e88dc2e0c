import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import { modeOfScope } from '../../libs/domain/shared/scope';
import { clusterKubeconfig, clusters, type ClusterFields } from '../../libs/domain/kubernetes/cluster.resource';
import { clusterVersionRefusal, kubernetesVersionList } from '../../libs/domain/kubernetes/kubernetes-versions';
import type { NodePool } from '../../libs/domain/kubernetes/node-pools';
import { badRequest } from '../../libs/application/src/errors';
import { listResult, toResource, type ListQuery, type ListResult } from '../../libs/application/src/views';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { clustersProjection } from '../../projections/clusters/clusters.projection';
import { modelsProjection } from '../../projections/models/models.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { offeredPlan } from '../catalog/offered-plan';
import { InjectPorts } from '../inject-ports';
import { ownDoc } from '../jobs/job-writes';
import { requireSameProvider, resolveProvider } from '../providers/resolve-provider';
import type { JobResourceUseCase } from '../resources/job-resources';

/**
 * Managed Kubernetes (spec 4.10, DECISIONS 14): a cluster with node pools, created by a cluster.create
 * job with a per-cluster credential kept in the vault; its delete refuses to leave AI models behind.
 */
export const clusterResource = {
  resource: clusters,
  projection: clustersProjection,
  type: 'kubernetes-clusters',
  capability: 'kubernetes',
  // The region and each pool's plan in the provider's catalog (422), the version among the provider's (400).
  async prepare({ ports, provider, body }) {
    const catalog = new CatalogValidation(ports);
    const region = await catalog.resolveRegion(provider.name, String(body.region));
    const offered = (await ports.drivers.get(provider.name, modeOfScope(provider.projectId)).kubernetesVersions?.()) ?? [];
    const refusal = clusterVersionRefusal(String(body.version), offered);
    if (refusal) throw badRequest([{ detail: refusal.message, source: { pointer: '/version' } }]);
    const nodePools: NodePool[] = [];
    for (const [i, pool] of (body.nodePools as NodePool[]).entries()) {
      const plan = await offeredPlan(catalog, provider.name, region.slug, pool.plan, `/nodePools/${i}/plan`);
      nodePools.push({ ...pool, plan: plan.slug });
    }
    return { ...(body as ClusterFields), region: region.slug, nodePools, credentialRef: null };
  },
  // The AI models on the cluster, which its delete rule refuses to leave behind (409).
  async prepareDelete({ ports, projectId, doc }) {
    const { total } = await (await ports.projections.collection(modelsProjection)).find({ filter: { clusterId: doc.id, projectId }, limit: 1 });
    return { models: total };
  },
  // The kubeconfig's per-cluster credential: made here, kept only in the vault.
  async secrets({ ports, projectId }) {
    const credentialRef = await ports.vault.put(projectId, { token: randomBytes(32).toString('base64url') });
    return { fields: { credentialRef }, reveal: {} };
  },
  // Its node pools at their plans' catalog prices (DECISIONS 22).
  async price({ ports, provider, body }) {
    const catalog = new CatalogValidation(ports);
    const nodePools = await Promise.all(body.nodePools.map(async (pool, i) => ({ plan: await offeredPlan(catalog, provider.name, body.region, pool.plan, `/nodePools/${i}/plan`), count: pool.count })));
    return { resourceType: 'cluster', nodePools };
  },
} satisfies JobResourceUseCase<typeof clusters.schema>;

/** A cluster's kubeconfig: endpoint and CA from the provider, the token from the credential vault. */
export class GetKubeconfig extends Query<string> {
  constructor(readonly call: { projectId: string; id: string; providerId?: string }) {
    super();
  }
}

@QueryHandler(GetKubeconfig)
export class GetKubeconfigHandler implements IQueryHandler<GetKubeconfig> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections' | 'vault'>) {}

  async execute({ call }: GetKubeconfig): Promise<string> {
    const doc = await ownDoc(this.ports, clustersProjection, call.projectId, call.id, clusters.label);
    requireSameProvider(doc.providerId, call.providerId, clusters.label);
    const secret = doc.status === 'active' && doc.credentialRef ? await this.ports.vault.get(doc.credentialRef) : null;
    return clusterKubeconfig(doc, secret?.token ?? null);
  }
}

/** The versions a new cluster may run at the provider (newest first), in a region of its catalog when given. */
export class ListKubernetesVersions extends Query<ListResult<object>> {
  constructor(readonly call: { projectId: string; list: ListQuery<{ providerId?: string; region?: string }> }) {
    super();
  }
}

@QueryHandler(ListKubernetesVersions)
export class ListKubernetesVersionsHandler implements IQueryHandler<ListKubernetesVersions> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'drivers' | 'events' | 'projections'>) {}

  async execute({ call }: ListKubernetesVersions): Promise<ListResult<object>> {
    const { providerId, region } = call.list.filters;
    const provider = await resolveProvider(this.ports, call.projectId, providerId, 'kubernetes');
    if (region) await new CatalogValidation(this.ports).resolveRegion(provider.name, region);
    const versions = kubernetesVersionList((await this.ports.drivers.get(provider.name, modeOfScope(provider.projectId)).kubernetesVersions?.()) ?? []);
    const ordered = call.list.sort[0]?.direction === 1 ? [...versions].reverse() : versions;
    const page = ordered.slice(call.list.skip, call.list.skip + call.list.limit);
    return listResult(page.map((v) => toResource('kubernetes-versions', v.version, v)), versions.length);
  }
}

export const KUBERNETES_HANDLERS = [GetKubeconfigHandler, ListKubernetesVersionsHandler];
