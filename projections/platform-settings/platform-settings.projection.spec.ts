import { DEFAULT_CONFIG } from '../../libs/domain/admin/settings';
import { logRecorder, projected } from '../../test/support/projector';
import { defaultSettings, platformSettingsProjection, SETTINGS_DOC_ID } from './platform-settings.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
const price = { hourlyCents: 10, monthlyCents: 5000, yearlyCents: 50000 };

describe('platform settings read model: the one settings document', () => {
  it('starts from the defaults and takes each setting as the admin records it', async () => {
    const log = logRecorder();
    const s = log.stream('admin-settings', {});
    const model = await projected(platformSettingsProjection);
    await model.handle(s('admin.MarginSet.v1', { marginPercent: 12.5, setAt: at(1) }));
    // A first event other than the config keeps the default config.
    expect(await model.get(SETTINGS_DOC_ID)).toEqual({ ...defaultSettings(), _position: 1, marginPercent: 12.5, marginUpdatedAt: at(1) });

    const config = { ...DEFAULT_CONFIG, platformName: 'Acme Cloud', signupsEnabled: false };
    await model.handle(s('admin.PlatformConfigUpdated.v1', { config, updatedAt: at(2) }));
    expect(await model.get(SETTINGS_DOC_ID)).toMatchObject({ config, configUpdatedAt: at(2), marginPercent: 12.5 });
  });

  it('keeps one edit per catalog entry, the latest replacing the earlier', async () => {
    const log = logRecorder();
    const s = log.stream('admin-settings', {});
    const model = await projected(platformSettingsProjection);
    await model.handle(
      s('admin.CatalogEntryUpdated.v1', { entryId: 'plan:small', entryType: 'plan', enabled: false, priceOverride: null, updatedAt: at(1) }),
      s('admin.CatalogEntryUpdated.v1', { entryId: 'image:ubuntu', entryType: 'image', enabled: false, priceOverride: null, updatedAt: at(2) }),
      s('admin.CatalogEntryUpdated.v1', { entryId: 'plan:small', entryType: 'plan', enabled: true, priceOverride: { USD: price }, updatedAt: at(3) }),
    );
    expect((await model.get(SETTINGS_DOC_ID))!.catalog).toEqual([
      { entryId: 'image:ubuntu', entryType: 'image', enabled: false, priceOverride: null, updatedAt: at(2) },
      { entryId: 'plan:small', entryType: 'plan', enabled: true, priceOverride: { USD: price }, updatedAt: at(3) },
    ]);
  });

  it('does not undo a later setting when the log hands an earlier one again after a restart', async () => {
    const log = logRecorder();
    const s = log.stream('admin-settings', {});
    const events = [s('admin.MarginSet.v1', { marginPercent: 10, setAt: at(1) }), s('admin.MarginSet.v1', { marginPercent: 20, setAt: at(2) })];
    const model = await projected(platformSettingsProjection);
    await model.handle(...events);
    model.restart();
    expect(await model.handle(events[0])).toBe(false);
    expect(await model.get(SETTINGS_DOC_ID)).toMatchObject({ marginPercent: 20, marginUpdatedAt: at(2) });
  });
});
