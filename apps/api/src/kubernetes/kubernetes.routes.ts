import { modeOfScope } from '../../../../libs/domain/shared/scope';
import { Controller, Inject, Res } from '@nestjs/common';
import { Query, QueryBus, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { clusterKubeconfig, clusters } from '../../../../libs/domain/kubernetes/cluster.resource';
import { kubernetesVersionList, kubernetesVersionSchema } from '../../../../libs/domain/kubernetes/kubernetes-versions';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, toResource } from '../../../../libs/http/src/envelope';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { listResult, type ListResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { clustersProjection } from '../../../../projections/clusters/clusters.projection';
import { CatalogValidation } from '../../../../usecases/catalog/catalog-validation';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { ownDoc } from '../../../../usecases/jobs/job-writes';
import { requireSameProvider, resolveProvider } from '../../../../usecases/providers/resolve-provider';
import { PORTS } from '../tokens';
import type { PortsOf } from '../../../../libs/runtime/src/ports';
import { inMemoryList } from '../../../../libs/http/src/list-query';

const providerQuery = z.object({ providerId: z.string().min(1).max(64).optional().describe('The provider (DECISIONS 14); by default the only one that offers Kubernetes') });

/** A cluster's kubeconfig: endpoint and CA from the provider, the token from the credential vault. */
export class GetKubeconfig extends Query<string> {
  constructor(readonly call: { principal: Principal | null; id: string; providerId?: string }) {
    super();
  }
}

@QueryHandler(GetKubeconfig)
export class GetKubeconfigHandler implements IQueryHandler<GetKubeconfig> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections' | 'vault'>) {}

  async execute({ call }: GetKubeconfig): Promise<string> {
    const doc = await ownDoc(this.ports, clustersProjection, dataScopeOf(call.principal), call.id, clusters.label);
    requireSameProvider(doc.providerId, call.providerId, clusters.label);
    const secret = doc.status === 'active' && doc.credentialRef ? await this.ports.vault.get(doc.credentialRef) : null;
    return clusterKubeconfig(doc, secret?.token ?? null);
  }
}

/** The versions a new cluster may run at the provider (newest first), in a region of its catalog when given. */
export class ListKubernetesVersions extends Query<ListResult<object>> {
  constructor(readonly call: { principal: Principal | null; list: ListQuery<{ providerId?: string; region?: string }> }) {
    super();
  }
}

@QueryHandler(ListKubernetesVersions)
export class ListKubernetesVersionsHandler implements IQueryHandler<ListKubernetesVersions> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'drivers' | 'events' | 'projections'>) {}

  async execute({ call }: ListKubernetesVersions): Promise<ListResult<object>> {
    const { providerId, region } = call.list.filters;
    const provider = await resolveProvider(this.ports, dataScopeOf(call.principal), providerId, 'kubernetes');
    if (region) await new CatalogValidation(this.ports).resolveRegion(provider.name, region);
    const versions = kubernetesVersionList((await this.ports.drivers.get(provider.name, modeOfScope(provider.projectId)).kubernetesVersions?.()) ?? []);
    const ordered = call.list.sort[0]?.direction === 1 ? [...versions].reverse() : versions;
    const page = ordered.slice(call.list.skip, call.list.skip + call.list.limit);
    return listResult(page.map((v) => toResource('kubernetes-versions', v.version, v)), versions.length);
  }
}

export const KUBERNETES_HANDLERS = [GetKubeconfigHandler, ListKubernetesVersionsHandler];

const kubeconfigRoute = route({
  method: 'GET',
  path: '/v1/kubernetes/clusters/{id}/kubeconfig',
  summary: "The cluster's kubeconfig as application/yaml (409 INVALID_STATE until the cluster is active)",
  tag: 'Kubernetes',
  auth: 'project',
  permission: 'kubernetes:read',
  params: z.object({ id: pathId }),
  query: providerQuery,
  responses: { 200: z.string().describe('kubeconfig YAML: one cluster, user and context') },
});
const versionsRoute = route({
  method: 'GET',
  path: '/v1/kubernetes/versions',
  summary: 'Kubernetes versions a new cluster may run at the provider, newest first',
  tag: 'Kubernetes',
  auth: 'project',
  permission: 'kubernetes:read',
  query: providerQuery.extend({ region: z.string().min(1).max(64).optional().describe('A region of the provider (422 INVALID_REGION otherwise)') }),
  list: inMemoryList('kubernetes-versions', ['version'], 'the provider\'s answer, newest first', '-version'),
  responses: { 200: collectionSchema('kubernetes-versions', kubernetesVersionSchema) },
});

@Controller()
export class KubernetesController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @ApiRoute(kubeconfigRoute)
  async kubeconfig(
    @CurrentPrincipal() principal: Principal,
    @Parsed() p: RouteInput<typeof kubeconfigRoute>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const yaml = await this.queries.execute(new GetKubeconfig({ principal, id: p.params.id, providerId: p.query.providerId }));
    reply.header('content-type', 'application/yaml; charset=utf-8').header('cache-control', 'no-store');
    return yaml;
  }

  @ApiRoute(versionsRoute)
  versions(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof versionsRoute>['list']) {
    return this.queries.execute(new ListKubernetesVersions({ principal, list }));
  }
}
