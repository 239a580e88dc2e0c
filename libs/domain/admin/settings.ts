import { z } from 'zod';
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';

/**
 * The platform's settings (DECISIONS 18): one event-sourced stream for the configuration, the pricing
 * margin and the admin's edits of catalog entries, folded into one read-model document.
 */
export const SETTINGS_STREAM = 'admin-settings';

/** The known settings: `PUT /v1/admin/config` replaces them (an absent field takes its default; an unknown one is 400). */
export const platformConfigSchema = z
  .object({
    platformName: z.string().trim().min(1).max(100).default('Cloud'),
    supportEmail: z.string().email().max(254).nullable().default(null),
    defaultCurrency: z.enum(['USD', 'NGN']).default('USD'),
    signupsEnabled: z.boolean().default(true),
    maintenanceMessage: z.string().trim().max(500).nullable().default(null),
  })
  .strict();
export type PlatformConfig = z.output<typeof platformConfigSchema>;
export const DEFAULT_CONFIG: PlatformConfig = platformConfigSchema.parse({});

/** A percentage added to catalog prices shown to customers: 0 to 1000 (DECISIONS 18). */
export const marginSchema = z.number().finite().min(0).max(1000);
export const MAX_MARGIN_PERCENT = 1000;

const cents = z.number().int().min(0).max(1e12);
export const priceSchema = z.object({ hourlyCents: cents, monthlyCents: cents, yearlyCents: cents }).strict();
export type CatalogPrice = z.output<typeof priceSchema>;
/** An admin's price for a catalog entry per currency, replacing the provider's (the margin applies on top). */
export const priceOverrideSchema = z.object({ USD: priceSchema.optional(), NGN: priceSchema.optional() }).strict();
export type PriceOverride = z.output<typeof priceOverrideSchema>;

export interface CatalogEntrySetting {
  enabled: boolean;
  priceOverride: PriceOverride | null;
  updatedAt: string;
}

export type PlatformConfigUpdated = DomainEvent<'admin.PlatformConfigUpdated.v1', { config: PlatformConfig; updatedAt: string }>;
export type MarginSet = DomainEvent<'admin.MarginSet.v1', { marginPercent: number; setAt: string }>;
export type CatalogEntryUpdated = DomainEvent<'admin.CatalogEntryUpdated.v1', { entryId: string; entryType: string; enabled: boolean; priceOverride: PriceOverride | null; updatedAt: string }>;
export type SettingsEvent = PlatformConfigUpdated | MarginSet | CatalogEntryUpdated;

export const SettingsEventTypes = { PlatformConfigUpdated: 'admin.PlatformConfigUpdated.v1', MarginSet: 'admin.MarginSet.v1', CatalogEntryUpdated: 'admin.CatalogEntryUpdated.v1' } as const;

export interface SettingsState {
  config: PlatformConfig;
  marginPercent: number;
  catalog: Record<string, CatalogEntrySetting>;
}

export type SetConfig = { type: 'SetConfig'; config: PlatformConfig; now: string };
export type SetMargin = { type: 'SetMargin'; marginPercent: number; now: string };
/** `priced`: whether the entry has a price (plans and instance types); an override of anything else is refused. */
export type UpdateCatalogEntry = { type: 'UpdateCatalogEntry'; entryId: string; entryType: string; priced: boolean; enabled?: boolean; priceOverride?: PriceOverride | null; now: string };
export type SettingsCommand = SetConfig | SetMargin | UpdateCatalogEntry;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const settingsDecider: Decider<SettingsCommand, SettingsEvent, SettingsState> = {
  initialState: () => ({ config: DEFAULT_CONFIG, marginPercent: 0, catalog: {} }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'admin.PlatformConfigUpdated.v1':
        return { ...state, config: event.data.config };
      case 'admin.MarginSet.v1':
        return { ...state, marginPercent: event.data.marginPercent };
      case 'admin.CatalogEntryUpdated.v1': {
        const { entryId, enabled, priceOverride, updatedAt } = event.data;
        return { ...state, catalog: { ...state.catalog, [entryId]: { enabled, priceOverride, updatedAt } } };
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'SetConfig': {
        const checked = platformConfigSchema.safeParse(command.config);
        if (!checked.success) throw new DomainError('BAD_REQUEST', `Invalid configuration: ${checked.error.issues.map((i) => i.path.join('.')).join(', ')}`);
        return same(checked.data, state.config) ? [] : [{ type: 'admin.PlatformConfigUpdated.v1', data: { config: checked.data, updatedAt: command.now } }];
      }
      case 'SetMargin':
        if (!marginSchema.safeParse(command.marginPercent).success) throw new DomainError('BAD_REQUEST', `The margin is a percentage from 0 to ${MAX_MARGIN_PERCENT}`);
        return command.marginPercent === state.marginPercent ? [] : [{ type: 'admin.MarginSet.v1', data: { marginPercent: command.marginPercent, setAt: command.now } }];
      case 'UpdateCatalogEntry': {
        const current = state.catalog[command.entryId] ?? { enabled: true, priceOverride: null };
        if (command.priceOverride && !command.priced) throw new DomainError('BAD_REQUEST', `Catalog entry ${command.entryId} (${command.entryType}) has no price to override`);
        const enabled = command.enabled ?? current.enabled;
        const priceOverride = command.priceOverride === undefined ? current.priceOverride : command.priceOverride;
        if (enabled === current.enabled && same(priceOverride, current.priceOverride)) return [];
        return [{ type: 'admin.CatalogEntryUpdated.v1', data: { entryId: command.entryId, entryType: command.entryType, enabled, priceOverride, updatedAt: command.now } }];
      }
    }
  },
};

/** A price as customers see it: the margin added, rounded to the nearest cent. */
export const withMargin = (cents: number, marginPercent: number): number => Math.round((cents * (100 + marginPercent)) / 100);
