import type { DomainEvent } from '../shared/domain-error';
import type { CatalogSnapshot } from './catalog.types';
import type { ProviderKind } from '../providers/events';

/** The offer a provider driver returned, recorded whole so reads never call the provider. */
export type CatalogSynced = DomainEvent<'catalog.CatalogSynced.v1', { kind: ProviderKind; snapshotHash: string; syncedAt: string; snapshot: CatalogSnapshot }>;

export type CatalogEvent = CatalogSynced;

export const CatalogEventTypes = { CatalogSynced: 'catalog.CatalogSynced.v1' } as const;

export const catalogStream = (kind: ProviderKind) => `catalog-${kind}`;
