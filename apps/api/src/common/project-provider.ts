import { AppError } from '../../../../libs/application/src/errors';
import type { ProviderDoc } from '../../../../projections/providers/providers.projection';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { findProjectProvider } from '../providers/find-provider';

/** The project's provider, else 404 PROVIDER_NOT_FOUND (spec 7: invalid, disabled or not in the project). */
export async function requireProjectProvider(platform: Platform, projectId: string, providerId: string, opts: { requireEnabled?: boolean } = {}): Promise<ProviderDoc> {
  const provider = await findProjectProvider(platform, projectId, providerId, opts);
  if (!provider) throw new AppError('PROVIDER_NOT_FOUND', `Provider ${providerId} not found${opts.requireEnabled ? ' or disabled' : ''}`);
  return provider;
}
