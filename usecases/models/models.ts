import { modelClusterRefusal, models, type ModelFields } from '../../libs/domain/models/model.resource';
import { clustersProjection } from '../../projections/clusters/clusters.projection';
import { modelsProjection } from '../../projections/models/models.projection';
import type { JobResourceUseCase } from '../resources/job-resources';

/** AI models (spec 4.16, DECISIONS 17): deployed to an active Kubernetes cluster of the project by a model.deploy job; stopped, started, scaled and deleted by jobs. */
export const modelResource = {
  resource: models,
  projection: modelsProjection,
  type: 'ai-models',
  capability: 'models',
  // The cluster: the project's (404) and active (409 INVALID_STATE).
  async prepare({ ports, projectId, body }) {
    const fields = body as ModelFields;
    const cluster = await (await ports.projections.collection(clustersProjection)).get(fields.clusterId);
    const refusal = modelClusterRefusal(fields.clusterId, cluster, projectId);
    if (refusal) throw refusal;
    return fields;
  },
} satisfies JobResourceUseCase<typeof models.schema>;
