import type { ProviderKind } from '../../libs/domain/providers/events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { AppError } from '../../libs/application/src/errors';
import type { CatalogPlan } from '../../libs/providers/src/catalog.types';
import type { CatalogValidation } from './catalog-validation';

/**
 * A plan (slug or id of `/v1/plans`) that the provider offers in the region, for a resource that
 * runs on one (a cluster's node pool, a managed database): else 422 INVALID_PLAN on the field.
 */
export async function offeredPlan(catalog: CatalogValidation, providerKind: ProviderKind, region: string, ref: string, pointer: string): Promise<CatalogPlan> {
  try {
    return (await catalog.validateCompute({ providerKind, region, instanceType: ref })).plan;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'INVALID_PLAN') throw new AppError('INVALID_PLAN', err.message, { source: { pointer } });
    throw err;
  }
}
