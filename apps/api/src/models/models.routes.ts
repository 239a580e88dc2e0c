import { modelActionSchema } from '../../../../libs/domain/models/model.resource';
import { modelResource } from '../../../../usecases/models/models';
import { jobResourceController } from '../common/job-resource.routes';

/**
 * AI models (spec 4.16, DECISIONS 17): a deploy answers 201 with the model `deploying` and the
 * `model.deploy` job; stop, start and scale go through `POST /v1/models/{id}/actions`; DELETE is a
 * job like the others (202). The lookups are the use case's (usecases/models).
 */
export const ModelsController = jobResourceController({
  ...modelResource,
  path: '/v1/models',
  tag: 'AI models',
  permission: 'models',
  createStatus: 201,
  summaries: {
    list: 'List the AI models of the project',
    get: 'Get an AI model',
    create: 'Deploy an AI model to an active Kubernetes cluster of the project (201, deploying; a model.deploy job)',
    delete: 'Delete an AI model (202, a model.delete job)',
  },
  actionsRoute: { summary: 'Stop, start or scale (with replicas) an AI model (202, a model.<action> job)', body: modelActionSchema },
});
