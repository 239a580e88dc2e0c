import type { z } from 'zod';
import { CatalogValidation } from '../catalog/catalog-validation';
import type { LookupInput } from '../resources/job-resources';

/**
 * A networking create's fields: the body (checked by the route) with the schema's defaults applied,
 * so what completions read (`targets: []`, `targetId: null`) is recorded from the first event, and
 * the region, when there is one, resolved in the provider's catalog (422 INVALID_REGION).
 */
export function createFields<S extends z.ZodObject>(schema: S) {
  return async ({ ports, provider, body }: LookupInput<Record<string, unknown>>): Promise<z.output<S>> => {
    const fields = schema.parse(body) as z.output<S> & { region?: string };
    if (typeof fields.region !== 'string') return fields;
    return { ...fields, region: (await new CatalogValidation(ports).resolveRegion(provider.name, fields.region)).slug };
  };
}
