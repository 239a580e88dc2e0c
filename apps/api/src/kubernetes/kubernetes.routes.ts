import { Controller, Inject, Res } from '@nestjs/common';
import { QueryBus } from '../common/bus-controller';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { kubernetesVersionSchema } from '../../../../libs/domain/kubernetes/kubernetes-versions';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { inMemoryList } from '../../../../libs/http/src/list-query';
import { GetKubeconfig, ListKubernetesVersions } from '../../../../usecases/kubernetes/kubernetes';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';

const providerQuery = z.object({ providerId: z.string().min(1).max(64).optional().describe('The provider (DECISIONS 14); by default the only one that offers Kubernetes') });

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
    const yaml = await this.queries.execute(new GetKubeconfig({ projectId: dataScopeOf(principal), id: p.params.id, providerId: p.query.providerId }));
    reply.header('content-type', 'application/yaml; charset=utf-8').header('cache-control', 'no-store');
    return yaml;
  }

  @ApiRoute(versionsRoute)
  versions(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof versionsRoute>['list']) {
    return this.queries.execute(new ListKubernetesVersions({ projectId: dataScopeOf(principal), list }));
  }
}
