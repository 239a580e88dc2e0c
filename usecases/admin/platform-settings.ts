import { defaultSettings, platformSettingsProjection, SETTINGS_DOC_ID, type PlatformSettingsDoc } from '../../projections/platform-settings/platform-settings.projection';
import { ProjectionCache } from '../../libs/runtime/src/projection-cache';
import type { PortsOf } from '../../libs/runtime/src/ports';

/**
 * The platform settings (config, margin, catalog edits) as of now: read by every customer catalog view
 * and create, so cached, dropped when this process's projector applies a change (an admin's PUT
 * answers only after that) and after 1 s for another API node. Shared object: do not mutate.
 */
export async function loadSettings(ports: PortsOf<'projections'>): Promise<PlatformSettingsDoc> {
  const cache = ProjectionCache.for<PlatformSettingsDoc>(ports, 'platform-settings', platformSettingsProjection as never);
  return (await cache.get(SETTINGS_DOC_ID, async () => (await (await ports.projections.collection(platformSettingsProjection)).get(SETTINGS_DOC_ID)) ?? defaultSettings()))!;
}
