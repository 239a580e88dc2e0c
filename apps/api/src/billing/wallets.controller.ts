import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CREDIT_SOURCES } from '../../../../libs/domain/billing/events';
import { CURRENCIES, RATE_PATTERN } from '../../../../libs/domain/billing/money';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { CREDITS_LIST, type CreditDoc } from '../../../../projections/billing-credits/billing-credits.projection';
import type { WalletDoc } from '../../../../projections/billing-wallets/billing-wallets.projection';
import { BusController } from '../common/bus-controller';
import { dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { ConvertCurrencyCommand, CreditWalletCommand, DebitWalletCommand, GetExchangeRate, GetWallets, ListCredits, SetExchangeRateCommand, type ConversionView, type RateView, type WalletMovement } from '../../../../usecases/billing/wallets.handlers';
import { inMemoryList, listOf } from '../../../../libs/http/src/list-query';

const WALLETS = 'wallets';
const CREDITS = 'credits';
const RATES = 'exchange-rates';
const CONVERSIONS = 'conversions';

const currency = z.enum(CURRENCIES);
const cents = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const reference = z.string().min(1).max(255).describe('Unique per wallet: a repeated reference moves no money (the answer says `applied: false`)');
const description = z.string().min(1).max(500);

const walletAttributes = z.object({
  currency,
  balanceCents: z.number().int().describe('The sum of the wallet\'s events: credits minus debits'),
  creditedCents: z.number().int(),
  debitedCents: z.number().int(),
  creditCount: z.number().int(),
  debitCount: z.number().int(),
  updatedAt: z.string().nullable().describe('When the last movement was recorded; null for a wallet that never moved'),
});
const movementMeta = z.object({
  movement: z.object({ kind: z.enum(['credit', 'debit']), id: z.string(), amountCents: z.number().int(), source: z.string(), reference: z.string(), applied: z.boolean() }),
});
const conversionRecord = z.object({ conversionId: z.string(), fromCurrency: currency, toCurrency: currency, fromAmountCents: z.number().int(), toAmountCents: z.number().int(), rate: z.string() });
const creditAttributes = z.object({
  currency,
  amountCents: z.number().int(),
  source: z.enum(CREDIT_SOURCES),
  reference: z.string(),
  description: z.string().nullable(),
  conversion: conversionRecord.nullable(),
  createdAt: z.string(),
});
const rateAttributes = z.object({ from: currency, to: currency, rate: z.string().describe('Decimal string; converted cents = floor(cents × rate)'), origin: z.enum(['admin', 'default']), updatedAt: z.string().nullable() });
const conversionAttributes = conversionRecord.omit({ conversionId: true }).extend({
  applied: z.boolean().describe('false: this reference converted before; nothing moved'),
  balances: z.array(z.object({ currency, balanceCents: z.number().int() })),
});

const walletOf = (w: WalletDoc) => {
  const { currency, balanceCents, creditedCents, debitedCents, creditCount, debitCount, updatedAt } = w;
  // A wallet that never moved has no event to date it (not the time of the read).
  return { id: currency, type: WALLETS, attributes: { currency, balanceCents, creditedCents, debitedCents, creditCount, debitCount, updatedAt: creditCount + debitCount === 0 ? null : updatedAt } };
};
const movementDocument = ({ wallet, movement }: WalletMovement) => {
  const { kind, id, amountCents, source, reference, applied } = movement;
  const w = walletOf(wallet);
  return resource(WALLETS, w.id, w.attributes, { meta: { movement: { kind, id, amountCents, source, reference, applied } } });
};
const creditOf = (c: CreditDoc) => ({ id: c.id, type: CREDITS, attributes: { currency: c.currency, amountCents: c.amountCents, source: c.source, reference: c.reference, description: c.description, conversion: c.conversion, createdAt: c.createdAt } });
const rateDocument = (r: RateView) => resource(RATES, `${r.from}-${r.to}`, r);
const conversionDocument = ({ conversion: { conversionId, ...c }, applied, from, to }: ConversionView) =>
  resource(CONVERSIONS, conversionId, { ...c, applied, balances: [from, to].map((w) => ({ currency: w.currency, balanceCents: w.balanceCents })) });

/** A promotional credit's answer: the credit as recorded, with the wallet's balance after it. */
const promoDocument = ({ wallet, movement }: WalletMovement, description: string | null) =>
  resource(CREDITS, movement.id, { currency: wallet.currency, amountCents: movement.amountCents, source: 'promo' as const, reference: movement.reference, description, conversion: null, createdAt: wallet.updatedAt, applied: movement.applied, balanceCents: wallet.balanceCents });

const currencyParams = z.object({ currency });
const pairParams = z.object({ from: currency, to: currency }).refine((p) => p.from !== p.to, { message: 'from and to must differ', path: ['to'] });
const movementBody = z.object({ amountCents: cents, reference: reference.optional(), description: description.optional() });

const project = { tag: 'Billing', auth: 'project' } as const;
const listWalletsRoute = route({
  ...project,
  method: 'GET',
  path: '/v1/billing/wallets',
  summary: 'The project\'s wallets, one per currency (zero until first credited)',
  permission: 'wallets:read',
  list: inMemoryList(WALLETS, ['currency', 'balanceCents'], 'one wallet per currency, those never credited included', 'currency'),
  responses: { 200: collectionSchema(WALLETS, walletAttributes) },
});
const getWalletRoute = route({
  ...project,
  method: 'GET',
  path: '/v1/billing/wallets/{currency}',
  summary: 'A wallet\'s balance',
  permission: 'wallets:read',
  params: currencyParams,
  responses: { 200: resourceSchema(WALLETS, walletAttributes) },
});
const creditRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/wallets/{currency}/credit',
  summary: 'Credit a wallet (a top-up)',
  permission: 'wallets:write',
  params: currencyParams,
  body: movementBody,
  idempotent: true,
  responses: { 200: resourceSchema(WALLETS, walletAttributes, { meta: movementMeta }) },
});
const debitRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/wallets/{currency}/debit',
  summary: 'Debit a wallet (422 INSUFFICIENT_FUNDS beyond its balance, also under concurrent debits)',
  permission: 'wallets:write',
  params: currencyParams,
  body: movementBody,
  idempotent: true,
  responses: { 200: resourceSchema(WALLETS, walletAttributes, { meta: movementMeta }) },
});
const convertRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/convert',
  summary: 'Convert between the project\'s wallets at the rate in force (rounded down to whole cents)',
  description: 'The debit records the conversion (rate and both amounts); the credit of the other wallet follows from it and is shown in the answer. 422 INSUFFICIENT_FUNDS beyond the balance.',
  permission: 'wallets:write',
  type: CONVERSIONS,
  body: z.object({ amountCents: cents, fromCurrency: currency, toCurrency: currency, reference: reference.optional() }).refine((b) => b.fromCurrency !== b.toCurrency, { message: 'must differ from fromCurrency', path: ['toCurrency'] }),
  idempotent: true,
  responses: { 200: resourceSchema(CONVERSIONS, conversionAttributes) },
});
const getRateRoute = route({
  ...project,
  method: 'GET',
  path: '/v1/billing/rates/{from}/{to}',
  summary: 'The exchange rate in force for a pair',
  permission: 'billing:read',
  params: pairParams,
  responses: { 200: resourceSchema(RATES, rateAttributes) },
});
const listCreditsRoute = route({
  ...project,
  method: 'GET',
  path: '/v1/billing/credits',
  summary: 'Every credit of the project\'s wallets, with its source and reference',
  permission: 'billing:read',
  list: listOf(CREDITS, CREDITS_LIST),
  query: z.object({ currency: currency.optional(), source: z.enum(CREDIT_SOURCES).optional() }),
  responses: { 200: collectionSchema(CREDITS, creditAttributes) },
});
const promoRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/credits/promo',
  summary: 'Credit a wallet with a promotional credit (source promo)',
  permission: 'billing:write',
  type: CREDITS,
  body: z.object({ amountCents: cents, currency, description: description.optional(), reference: reference.optional() }),
  idempotent: true,
  responses: { 201: resourceSchema(CREDITS, creditAttributes.extend({ applied: z.boolean(), balanceCents: z.number().int() })) },
});
const setRateRoute = route({
  method: 'PUT',
  path: '/v1/admin/billing/rates/{from}/{to}',
  summary: 'Set the exchange rate of a pair (platform admin only; an event-sourced setting)',
  tag: 'Admin',
  auth: 'admin',
  type: RATES,
  params: pairParams,
  body: z.object({ rate: z.union([z.string().regex(RATE_PATTERN, 'a positive decimal with at most 12 decimals'), z.number().positive()]) }),
  responses: { 200: resourceSchema(RATES, rateAttributes) },
});

@Controller()
export class WalletsController extends BusController {
  @ApiRoute(listWalletsRoute)
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listWalletsRoute>['list']) {
    const wallets: WalletDoc[] = await this.queries.execute(new GetWallets(dataScopeOf(principal)));
    // A fixed set (one wallet per currency), so it is ordered and paged here.
    const sorted = [...wallets].sort((a, b) => {
      for (const { field, direction } of list.sort) {
        const [x, y] = [a[field as keyof WalletDoc], b[field as keyof WalletDoc]] as [string | number, string | number];
        if (x !== y) return (x < y ? -1 : 1) * direction;
      }
      return a.currency < b.currency ? -1 : 1;
    });
    return listResult(sorted.slice(list.skip, list.skip + list.limit).map(walletOf), sorted.length);
  }

  @ApiRoute(getWalletRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getWalletRoute>['params']) {
    const wallets: WalletDoc[] = await this.queries.execute(new GetWallets(dataScopeOf(principal)));
    const w = walletOf(wallets.find((x) => x.currency === params.currency)!);
    return resource(WALLETS, w.id, w.attributes);
  }

  @ApiRoute(creditRoute)
  async credit(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof creditRoute>['params'], @Parsed('body') body: RouteInput<typeof creditRoute>['body']) {
    const origin = { source: 'top-up' as const, reference: body.reference ?? '', description: body.description ?? null };
    return movementDocument(await this.commands.execute(new CreditWalletCommand(dataScopeOf(principal), params.currency, body.amountCents, origin, commandContext(req, principal))));
  }

  @ApiRoute(debitRoute)
  async debit(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof debitRoute>['params'], @Parsed('body') body: RouteInput<typeof debitRoute>['body']) {
    const origin = { source: 'debit' as const, reference: body.reference ?? '', description: body.description ?? null };
    return movementDocument(await this.commands.execute(new DebitWalletCommand(dataScopeOf(principal), params.currency, body.amountCents, origin, commandContext(req, principal))));
  }

  @ApiRoute(convertRoute)
  async convert(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof convertRoute>['body']) {
    return conversionDocument(await this.commands.execute(new ConvertCurrencyCommand(dataScopeOf(principal), body.fromCurrency, body.toCurrency, body.amountCents, body.reference ?? null, commandContext(req, principal))));
  }

  @ApiRoute(getRateRoute)
  async rate(@Parsed('params') params: RouteInput<typeof getRateRoute>['params']) {
    return rateDocument(await this.queries.execute(new GetExchangeRate(params.from, params.to)));
  }

  @ApiRoute(listCreditsRoute)
  credits(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listCreditsRoute>['list']) {
    return this.queries.execute(new ListCredits(dataScopeOf(principal), list, creditOf));
  }

  @ApiRoute(promoRoute)
  async promo(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof promoRoute>['body']) {
    const origin = { source: 'promo' as const, reference: body.reference ?? '', description: body.description ?? null };
    const moved: WalletMovement = await this.commands.execute(new CreditWalletCommand(dataScopeOf(principal), body.currency, body.amountCents, origin, commandContext(req, principal)));
    return promoDocument(moved, body.description ?? null);
  }

  @ApiRoute(setRateRoute)
  async setRate(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof setRateRoute>['params'], @Parsed('body') body: RouteInput<typeof setRateRoute>['body']) {
    const rate = typeof body.rate === 'number' ? String(body.rate) : body.rate;
    return rateDocument(await this.commands.execute(new SetExchangeRateCommand(params.from, params.to, rate, commandContext(req, principal))));
  }
}
