import { PROVIDER_CAPABILITIES, supportsCapability, type Capability } from '../../libs/domain/providers/capabilities';
import { PROVIDER_KINDS } from '../../libs/domain/providers/events';
import { AppError, badRequest, notFound } from '../../libs/application/src/errors';
import { providersProjection, type ProviderDoc } from '../../projections/providers/providers.projection';
import { findProjectProvider } from './find-provider';
import type { PortsOf } from '../../libs/runtime/src/ports';

const kindsSupporting = (capability: Capability): string[] => PROVIDER_KINDS.filter((k) => PROVIDER_CAPABILITIES[k].includes(capability));

/**
 * The provider a networking, storage or Kubernetes operation runs on (DECISIONS 14). With
 * `providerId`: the project's enabled provider (else 404 PROVIDER_NOT_FOUND), whose kind must support
 * `capability` (else 400 UNSUPPORTED_PROVIDER). Without: the project's only enabled provider that
 * supports it; none is 404 PROVIDER_NOT_FOUND, several is 400 naming the `providerId` parameter.
 */
export async function resolveProvider(ports: PortsOf<'events' | 'projections'>, projectId: string, providerId: string | undefined, capability: Capability): Promise<ProviderDoc> {
  if (providerId !== undefined) {
    const provider = await findProjectProvider(ports, projectId, providerId, { requireEnabled: true });
    if (!provider) throw new AppError('PROVIDER_NOT_FOUND', `Provider ${providerId} not found or disabled`);
    if (!supportsCapability(provider.name, capability)) {
      throw new AppError('UNSUPPORTED_PROVIDER', `Provider ${providerId} (${provider.name}) does not support ${capability}`, { source: { parameter: 'providerId' } });
    }
    return provider;
  }
  const providers = await ports.projections.collection(providersProjection);
  const { items } = await providers.find({
    filter: { projectId, deletedAt: null, enabled: true, name: { $in: kindsSupporting(capability) } },
    sort: [{ field: 'createdAt', direction: 1 }],
    limit: 2,
    withTotal: false,
  });
  if (items.length === 0) throw new AppError('PROVIDER_NOT_FOUND', `No enabled provider of the project supports ${capability}`);
  if (items.length > 1) {
    throw badRequest([{ detail: `Several enabled providers of the project support ${capability}: choose one with providerId`, source: { parameter: 'providerId' } }]);
  }
  return items[0];
}

/**
 * An operation on an existing resource runs on the resource's own provider: a `providerId` naming
 * another one finds no such resource there (404 NOT_FOUND, DECISIONS 14).
 */
export function requireSameProvider(resourceProviderId: string, providerId: string | undefined, label = 'Resource'): void {
  if (providerId !== undefined && providerId !== resourceProviderId) throw notFound(`${label} not found`);
}
