import { providersProjection, type ProviderDoc } from '../../projections/providers/providers.projection';
import { ProjectionCache } from '../../libs/runtime/src/projection-cache';
import { foldDocument } from '../../libs/subscriptions/src/document-projection';
import { providerStream } from '../../libs/domain/providers/events';
import type { PortsOf } from '../../libs/runtime/src/ports';

/**
 * The provider `providerId` of `projectId`, or null when it is missing, deleted, belongs to another
 * project or (with `requireEnabled`) is disabled. Callers map null to 404 PROVIDER_NOT_FOUND / NOT_FOUND.
 */
export async function findProjectProvider(
  ports: PortsOf<'events' | 'projections'>,
  projectId: string,
  providerId: string,
  opts: { requireEnabled?: boolean } = {},
): Promise<ProviderDoc | null> {
  // Every create looks its provider up: cached briefly, dropped when the providers model changes.
  const cache = ProjectionCache.for<ProviderDoc>(ports, 'providers', providersProjection as never);
  // A provider created a moment ago may not be projected yet (the create answered after the bounded
  // consistency wait): then it is folded from its own stream, so a create right after never 404s.
  const doc = await cache.get(
    providerId,
    async () =>
      (await (await ports.projections.collection(providersProjection)).get(providerId)) ??
      foldDocument(providersProjection, await ports.events.readStream(providerStream(providerId)), providerId),
  );
  if (!doc || doc.projectId !== projectId || doc.deletedAt !== null) return null;
  if (opts.requireEnabled && !doc.enabled) return null;
  return doc;
}
