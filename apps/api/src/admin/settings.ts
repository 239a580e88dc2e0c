import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { marginSchema, platformConfigSchema } from '../../../../libs/domain/admin/settings';
import type { Principal } from '../../../../libs/http/src/auth';
import { resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { SETTINGS_DOC_ID, type PlatformSettingsDoc } from '../../../../projections/platform-settings/platform-settings.projection';
import { ChangeSetting, GetSettings } from '../../../../usecases/admin/settings';
import { BusController } from '../common/bus-controller';
import { commandContext } from '../identity/request-context';

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
