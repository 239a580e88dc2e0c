import { clusters } from '../../libs/domain/kubernetes/cluster.resource';
import { jobResourceEventTypes } from '../../libs/domain/shared/job-resource';
import { clustersProjection } from '../../projections/clusters/clusters.projection';
import { declaredJobResource } from '../../sagas/job-operations/declared-resource';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Kubernetes (spec 4.10): clusters, whose create and delete are jobs. */
export const kubernetesModule: ContextModule = {
  name: 'kubernetes',
  projections: [clustersProjection],
  jobResources: [declaredJobResource(clusters, clustersProjection.name)],
  eventTypes: Object.values(jobResourceEventTypes(clusters)),
};
