import { instanceTemplates } from '../../../../libs/domain/templates';
import type { ProviderKind } from '../../../../libs/domain/providers/events';
import { badRequest } from '../../../../libs/application/src/errors';
import { templatesProjection } from '../../../../projections/templates/templates.projection';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import { CatalogValidation } from '../../../../usecases/catalog/catalog-validation';
import { requireProjectProvider } from '../../../../usecases/providers/project-provider';
import { simpleResourceController } from '../common/simple-resource.routes';

/** Reusable instance launch specifications (spec 2.8, 4.6). */
export const TemplatesController = simpleResourceController({
  resource: instanceTemplates,
  projection: templatesProjection,
  type: 'instance-templates',
  path: '/v1/templates',
  tag: 'Templates',
  permission: 'templates',
  routes: {
    list: 'List the instance templates of the project',
    get: 'Get an instance template',
    create: 'Create an instance template',
    delete: 'Delete an instance template',
  },
  // A template must be launchable as written: its provider enabled, 422 INVALID_REGION / INVALID_PLAN /
  // INVALID_OS as on an instance create, and its SSH key one of the project's keys on that provider.
  async prepare({ ports, projectId, body }) {
    const provider = await requireProjectProvider(ports, projectId, body.providerId, { requireEnabled: true });
    await new CatalogValidation(ports).validateCompute({ providerKind: provider.name as ProviderKind, region: body.region, instanceType: body.instanceType, image: body.image });
    if (body.sshKeyId) {
      const key = await (await ports.projections.collection(sshKeysProjection)).get(body.sshKeyId);
      if (!key || key.projectId !== projectId || key.providerId !== body.providerId) {
        throw badRequest([{ detail: `SSH key ${body.sshKeyId} not found for provider ${body.providerId}`, source: { pointer: '/sshKeyId' } }]);
      }
    }
    return { fields: body };
  },
});
