import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { marginSchema, platformConfigSchema, SETTINGS_STREAM, settingsDecider, type SettingsCommand } from '../../../../libs/domain/admin/settings';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import type { Principal } from '../../../../libs/http/src/auth';
import { resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { defaultSettings, platformSettingsProjection, SETTINGS_DOC_ID, type PlatformSettingsDoc } from '../../../../projections/platform-settings/platform-settings.projection';
import { BusController } from '../common/bus-controller';
import { commandContext } from '../identity/request-context';
import { PORTS } from '../tokens';
import { loadSettings } from '../../../../usecases/admin/platform-settings';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

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
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

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
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  execute(): Promise<PlatformSettingsDoc> {
    return loadSettings(this.ports);
  }
}

export const SETTINGS_HANDLERS = [ChangeSettingHandler, GetSettingsHandler];

const common = { tag: 'Admin', auth: 'admin' } as const;
const configAttributes = platformConfigSchema.extend({ updatedAt: z.string().nullable().describe('Null while the defaults apply') });
const marginAttributes = z.object({ margin: z.number().describe('Percentage added to the catalog prices customers see (0 to 1000)'), updatedAt: z.string().nullable() });
const marginBody = z.object({ margin: marginSchema.describe('A percentage from 0 to 1000; anything else is 400') }).strict();

const getConfigRoute = route({ ...common, method: 'GET', path: '/v1/admin/config', summary: 'Platform configuration (platform admin)', responses: { 200: resourceSchema('config', configAttributes) } });
const putConfigRoute = route({
  ...common,
  method: 'PUT',
  path: '/v1/admin/config',
  summary: 'Replace the platform configuration (platform admin); an absent setting takes its default, an unknown one is 400',
  type: 'config',
  body: platformConfigSchema,
  responses: { 200: resourceSchema('config', configAttributes) },
});
const getMarginRoute = route({ ...common, method: 'GET', path: '/v1/admin/config/margin', summary: 'The pricing margin (platform admin)', responses: { 200: resourceSchema('margin', marginAttributes) } });
const putMarginRoute = route({
  ...common,
  method: 'PUT',
  path: '/v1/admin/config/margin',
  summary: 'Set the pricing margin applied to the catalog prices customers see (platform admin)',
  type: 'margin',
  body: marginBody,
  responses: { 200: resourceSchema('margin', marginAttributes) },
});

const configDocument = (s: PlatformSettingsDoc) => resource('config', SETTINGS_DOC_ID, { ...s.config, updatedAt: s.configUpdatedAt });
const marginDocument = (s: PlatformSettingsDoc) => resource('margin', SETTINGS_DOC_ID, { margin: s.marginPercent, updatedAt: s.marginUpdatedAt });

/** `config` and `config/margin` (DECISIONS 18): event-sourced settings on one stream. */
@Controller()
export class AdminSettingsController extends BusController {
  @ApiRoute(getConfigRoute)
  async getConfig() {
    return configDocument(await this.queries.execute(new GetSettings()));
  }

  @ApiRoute(putConfigRoute)
  async putConfig(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof putConfigRoute>['body']) {
    return configDocument(await this.commands.execute(new ChangeSetting({ type: 'SetConfig', config: body }, commandContext(req, p))));
  }

  @ApiRoute(getMarginRoute)
  async getMargin() {
    return marginDocument(await this.queries.execute(new GetSettings()));
  }

  @ApiRoute(putMarginRoute)
  async putMargin(@Req() req: FastifyRequest, @CurrentPrincipal() p: Principal, @Parsed('body') body: RouteInput<typeof putMarginRoute>['body']) {
    return marginDocument(await this.commands.execute(new ChangeSetting({ type: 'SetMargin', marginPercent: body.margin }, commandContext(req, p))));
  }
}
