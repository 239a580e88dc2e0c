import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { SETTINGS_STREAM, settingsDecider, type SettingsCommand } from '../../libs/domain/admin/settings';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { defaultSettings, platformSettingsProjection, SETTINGS_DOC_ID, type PlatformSettingsDoc } from '../../projections/platform-settings/platform-settings.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { InjectPorts } from '../inject-ports';
import { loadSettings } from './platform-settings';

type Setting = SettingsCommand extends infer C ? (C extends { now: string } ? Omit<C, 'now'> : never) : never;

/** One change to the settings stream (config, margin or a catalog entry), answered as of that write. */
export class ChangeSetting extends Command<PlatformSettingsDoc> {
  constructor(
    readonly setting: Setting,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ChangeSetting)
export class ChangeSettingHandler implements ICommandHandler<ChangeSetting> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ setting, context }: ChangeSetting): Promise<PlatformSettingsDoc> {
    const result = await handleCommand(this.ports.events, SETTINGS_STREAM, settingsDecider, { ...setting, now: this.ports.now() } as SettingsCommand, context);
    if (result.position === null) return loadSettings(this.ports);
    // The customer catalog's cache of the settings drops when this process's projector applies them.
    await this.ports.waitForProjections(result.position, [platformSettingsProjection.name]);
    return (await this.ports.readBack(platformSettingsProjection, SETTINGS_STREAM, SETTINGS_DOC_ID, result.position)) ?? defaultSettings();
  }
}

/** The settings as customers' catalog views read them (defaults until something was set). */
export class GetSettings extends Query<PlatformSettingsDoc> {}

@QueryHandler(GetSettings)
export class GetSettingsHandler implements IQueryHandler<GetSettings> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute(): Promise<PlatformSettingsDoc> {
    return loadSettings(this.ports);
  }
}

export const SETTINGS_HANDLERS = [ChangeSettingHandler, GetSettingsHandler];
