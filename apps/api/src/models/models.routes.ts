import { modelActionSchema, modelClusterRefusal, models, type ModelFields } from '../../../../libs/domain/models/model.resource';
import { clustersProjection } from '../../../../projections/clusters/clusters.projection';
import { modelsProjection } from '../../../../projections/models/models.projection';
import { jobResourceController } from '../common/job-resource.routes';

/**
 * AI models (spec 4.16, DECISIONS 17): a deploy answers 201 with the model `deploying` and the
 * `model.deploy` job; stop, start and scale go through `POST /v1/models/{id}/actions`; DELETE is a
 * job like the others (202).
 */
export const ModelsController = jobResourceController({
  resource: models,
  projection: modelsProjection,
  type: 'ai-models',
  path: '/v1/models',
  tag: 'AI models',
  permission: 'models',
  capability: 'models',
  createStatus: 201,
  summaries: {
    list: 'List the AI models of the project',
    get: 'Get an AI model',
    create: 'Deploy an AI model to an active Kubernetes cluster of the project (201, deploying; a model.deploy job)',
    delete: 'Delete an AI model (202, a model.delete job)',
  },
  actionsRoute: { summary: 'Stop, start or scale (with replicas) an AI model (202, a model.<action> job)', body: modelActionSchema },
  // The cluster: the project's (404) and active (409 INVALID_STATE).
  async prepare({ ports, projectId, body }) {
    const fields = body as ModelFields;
    const cluster = await (await ports.projections.collection(clustersProjection)).get(fields.clusterId);
    const refusal = modelClusterRefusal(fields.clusterId, cluster, projectId);
    if (refusal) throw refusal;
    return fields;
  },
});
