import { interconnectionCreateBody, interconnectionResource } from '../../../../usecases/networking/interconnections';
import { jobResourceController } from '../common/job-resource.routes';

/** Interconnections (spec 4.8, DECISIONS 14): a link between two regions of one provider; create and delete are jobs. The lookups are the use case's (usecases/networking). */
export const InterconnectionsController = jobResourceController({
  ...interconnectionResource,
  path: '/v1/interconnections',
  tag: 'Networking',
  permission: 'networking',
  summaries: { list: 'List the interconnections of the project', get: 'Get an interconnection', create: 'Create an interconnection between two regions (202, an interconnection.create job)', delete: 'Delete an interconnection (202, an interconnection.delete job)' },
  body: interconnectionCreateBody,
});
