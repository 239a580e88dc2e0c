import { AppError } from '../../libs/application/src/errors';
import type { ProviderDoc } from '../../projections/providers/providers.projection';
import { findProjectProvider } from './find-provider';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** The project's provider, else 404 PROVIDER_NOT_FOUND (spec 7: invalid, disabled or not in the project). */
export async function requireProjectProvider(ports: PortsOf<'events' | 'projections'>, projectId: string, providerId: string, opts: { requireEnabled?: boolean } = {}): Promise<ProviderDoc> {
  const provider = await findProjectProvider(ports, projectId, providerId, opts);
  if (!provider) throw new AppError('PROVIDER_NOT_FOUND', `Provider ${providerId} not found${opts.requireEnabled ? ' or disabled' : ''}`);
  return provider;
}
