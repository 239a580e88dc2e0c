import { z } from 'zod';
import { bandwidthSchema, interconnections } from '../../libs/domain/networking/interconnection.resource';
import { badRequest } from '../../libs/application/src/errors';
import { interconnectionsProjection } from '../../projections/interconnections/interconnections.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import type { JobResourceUseCase } from '../resources/job-resources';

/** What an interconnection's create takes: its two regions (which must differ), not the recorded `regions` pair. */
export const interconnectionCreateBody = z
  .object({ name: interconnections.schema.shape.name, sourceRegion: z.string().min(1).max(64), targetRegion: z.string().min(1).max(64), bandwidth: bandwidthSchema.optional(), tags: interconnections.schema.shape.tags })
  .superRefine((b, ctx) => {
    if (b.sourceRegion.toLowerCase() === b.targetRegion.toLowerCase()) ctx.addIssue({ code: 'custom', path: ['targetRegion'], message: 'targetRegion must differ from sourceRegion' });
  });

/** Interconnections (spec 4.8, DECISIONS 14): a link between two regions of one provider; create and delete are jobs. */
export const interconnectionResource = {
  resource: interconnections,
  projection: interconnectionsProjection,
  type: 'interconnections',
  capability: 'interconnections',
  regionField: 'regions',
  // Both regions resolve in the provider's catalog (422), and must still differ once resolved (a slug and its site are one region).
  async prepare({ ports, provider, body: raw }) {
    const b = interconnectionCreateBody.parse(raw);
    const catalog = new CatalogValidation(ports);
    const sourceRegion = (await catalog.resolveRegion(provider.name, b.sourceRegion)).slug;
    const targetRegion = (await catalog.resolveRegion(provider.name, b.targetRegion)).slug;
    if (sourceRegion === targetRegion) throw badRequest([{ detail: `targetRegion must differ from sourceRegion (both are ${targetRegion})`, source: { pointer: '/targetRegion' } }]);
    return { name: b.name, sourceRegion, targetRegion, bandwidth: b.bandwidth ?? null, regions: [sourceRegion, targetRegion], tags: b.tags };
  },
} satisfies JobResourceUseCase<typeof interconnections.schema>;
