import { deciderSpec } from '../shared/decider-spec';
import { DEFAULT_CONFIG, settingsDecider, withMargin, type SettingsEvent } from './settings';

const given = deciderSpec(settingsDecider);
const now = '2026-01-01T00:00:00.000Z';
const price = { hourlyCents: 10, monthlyCents: 7000, yearlyCents: 80000 };

describe('platform settings decider', () => {
  it('sets the margin from 0 to 1000 percent; anything else is BAD_REQUEST', () => {
    given([]).when({ type: 'SetMargin', marginPercent: 15, now }).then([{ type: 'admin.MarginSet.v1', data: { marginPercent: 15, setAt: now } }]);
    given([]).when({ type: 'SetMargin', marginPercent: 1000, now }).then([{ type: 'admin.MarginSet.v1', data: { marginPercent: 1000, setAt: now } }]);
    given([]).when({ type: 'SetMargin', marginPercent: 0, now }).thenNothingHappens();
    for (const bad of [-1, 1000.5, Number.NaN, Number.POSITIVE_INFINITY]) given([]).when({ type: 'SetMargin', marginPercent: bad, now }).thenThrows('BAD_REQUEST', /0 to 1000/);
  });

  it('replaces the configuration, recording nothing when it is unchanged', () => {
    given([]).when({ type: 'SetConfig', config: DEFAULT_CONFIG, now }).thenNothingHappens();
    const config = { ...DEFAULT_CONFIG, platformName: 'Acme Cloud' };
    given([]).when({ type: 'SetConfig', config, now }).then([{ type: 'admin.PlatformConfigUpdated.v1', data: { config, updatedAt: now } }]);
    given([]).when({ type: 'SetConfig', config: { ...DEFAULT_CONFIG, defaultCurrency: 'EUR' } as never, now }).thenThrows('BAD_REQUEST', /defaultCurrency/);
  });

  it('disables a catalog entry and overrides a price, keeping what a later edit leaves out', () => {
    const disabled: SettingsEvent = { type: 'admin.CatalogEntryUpdated.v1', data: { entryId: 'plan-1', entryType: 'plan', enabled: false, priceOverride: null, updatedAt: now } };
    given([]).when({ type: 'UpdateCatalogEntry', entryId: 'plan-1', entryType: 'plan', priced: true, enabled: false, now }).then([disabled]);
    given([disabled])
      .when({ type: 'UpdateCatalogEntry', entryId: 'plan-1', entryType: 'plan', priced: true, priceOverride: { USD: price }, now })
      .then([{ type: 'admin.CatalogEntryUpdated.v1', data: { entryId: 'plan-1', entryType: 'plan', enabled: false, priceOverride: { USD: price }, updatedAt: now } }]);
    given([disabled]).when({ type: 'UpdateCatalogEntry', entryId: 'plan-1', entryType: 'plan', priced: true, enabled: false, now }).thenNothingHappens();
    given([]).when({ type: 'UpdateCatalogEntry', entryId: 'r-1', entryType: 'region', priced: false, priceOverride: { USD: price }, now }).thenThrows('BAD_REQUEST', /no price/);
  });

  it('adds the margin to a price in whole cents', () => {
    expect(withMargin(1000, 15)).toBe(1150);
    expect(withMargin(3, 50)).toBe(5);
    expect(withMargin(1000, 0)).toBe(1000);
    expect(withMargin(7, 1000)).toBe(77);
  });
});
