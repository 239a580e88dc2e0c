import type { ReadDoc } from '../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { DEFAULT_CONFIG, SettingsEventTypes, type CatalogEntrySetting, type PlatformConfig, type SettingsEvent } from '../../libs/domain/admin/settings';

export interface PlatformSettingsDoc extends ReadDoc {
  config: PlatformConfig;
  configUpdatedAt: string | null;
  marginPercent: number;
  marginUpdatedAt: string | null;
  /** The admin's edits of catalog entries (an array: provider ids may hold characters a document key may not). */
  catalog: CatalogEntryEdit[];
}

export type CatalogEntryEdit = CatalogEntrySetting & { entryId: string; entryType: string };

export const SETTINGS_DOC_ID = 'platform';

/** The defaults, before any setting was recorded. */
export const defaultSettings = (): PlatformSettingsDoc => ({ id: SETTINGS_DOC_ID, _position: 0, config: DEFAULT_CONFIG, configUpdatedAt: null, marginPercent: 0, marginUpdatedAt: null, catalog: [] });

/** The one settings stream folded into one document: read by every customer catalog view (cached) and the admin routes. */
export const platformSettingsProjection: DocumentProjection<PlatformSettingsDoc> = {
  name: 'platform_settings',
  version: 1,
  eventTypes: Object.values(SettingsEventTypes),
  documentId: () => SETTINGS_DOC_ID,
  evolve: (current, recorded) => {
    const doc = { ...(current ?? defaultSettings()), _position: recorded.position };
    const event = { type: recorded.type, data: recorded.data } as SettingsEvent;
    switch (event.type) {
      case 'admin.PlatformConfigUpdated.v1':
        return { ...doc, config: event.data.config, configUpdatedAt: event.data.updatedAt };
      case 'admin.MarginSet.v1':
        return { ...doc, marginPercent: event.data.marginPercent, marginUpdatedAt: event.data.setAt };
      case 'admin.CatalogEntryUpdated.v1': {
        const { entryId, entryType, enabled, priceOverride, updatedAt } = event.data;
        return { ...doc, catalog: [...doc.catalog.filter((e) => e.entryId !== entryId), { entryId, entryType, enabled, priceOverride, updatedAt }] };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
};
