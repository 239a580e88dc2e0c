import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CURRENCIES } from '../../../../libs/domain/billing/money';
import { PROMO_CODE_PATTERN } from '../../../../libs/domain/billing/payments';
import type { Principal } from '../../../../libs/http/src/auth';
import { resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { PAYMENT_PROVIDERS } from '../../../../libs/payments/src/payment-provider.port';
import { BusController } from '../common/bus-controller';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { ApplyCheckoutPromoCommand, CompleteCheckoutCommand, InitializePaymentCommand, PROVIDER_CURRENCY, SetPromoCodeCommand, StartCheckoutCommand, VerifyPaymentCommand, type CheckoutView, type PaymentView } from '../../../../usecases/billing/payments.handlers';

const CHECKOUTS = 'checkout-sessions';
const PAYMENTS = 'payments';
const PROMOS = 'promo-codes';

const currency = z.enum(CURRENCIES);
const provider = z.enum(PAYMENT_PROVIDERS);
const cents = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const promo = z.object({ code: z.string(), amountCents: z.number().int(), currency }).nullable();

const checkoutAttributes = z.object({
  status: z.enum(['requires_payment_method', 'succeeded', 'failed']),
  clientSecret: z.string().optional().describe('Only in the setup-intent answer (the client confirms with it); never stored'),
  setupIntentId: z.string(),
  provider,
  amountCents: z.number().int(),
  currency,
  promo,
  balanceCents: z.number().int().optional().describe('The wallet after completion'),
});
const paymentAttributes = z.object({
  reference: z.string().describe('Our reference: verify with it (paymentIntentId)'),
  authorizationUrl: z.string(),
  provider,
  amountCents: z.number().int(),
  currency,
  status: z.enum(['pending', 'succeeded', 'failed']),
  balanceCents: z.number().int().optional().describe('The wallet after verification'),
});
const promoAttributes = z.object({ code: z.string(), amountCents: z.number().int(), currency, active: z.boolean(), description: z.string().nullable(), setAt: z.string() });

function checkoutDocument({ checkoutId, state, clientSecret, wallet }: CheckoutView) {
  const c = state.checkout!;
  return resource(CHECKOUTS, checkoutId, {
    status: state.status,
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    setupIntentId: c.setupIntentId,
    provider: c.provider,
    amountCents: c.amountCents,
    currency: c.currency,
    promo: state.promo,
    ...(wallet ? { balanceCents: wallet.balanceCents } : {}),
  });
}
function paymentDocument({ state, wallet }: PaymentView) {
  const p = state.payment!;
  return resource(PAYMENTS, p.reference, { reference: p.reference, authorizationUrl: p.authorizationUrl, provider: p.provider, amountCents: p.amountCents, currency: p.currency, status: state.status, ...(wallet ? { balanceCents: wallet.balanceCents } : {}) });
}

const checkoutParams = z.object({ checkoutId: pathId });
const initializeBody = z.object({
  amountCents: cents,
  currency: currency.optional().describe('The provider\'s currency (stripe USD, paystack NGN; DECISIONS 13), its default'),
  email: z.email().max(254).optional().describe('The payer\'s address (Paystack requires one)'),
});
const project = { tag: 'Billing', auth: 'project' } as const;

const setupIntentRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/checkout/setup-intent',
  summary: 'Start a checkout session: a payment-provider setup intent for a wallet top-up',
  permission: 'payments:write',
  type: CHECKOUTS,
  body: z.object({ amountCents: cents, currency: currency.default('USD'), provider: provider.optional().describe('Default: the currency\'s provider') }),
  idempotent: true,
  responses: { 201: resourceSchema(CHECKOUTS, checkoutAttributes) },
});
const checkoutPromoRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/checkout/{checkoutId}/promo',
  summary: 'Apply a promo code (from the admin-managed table; unknown 422 INVALID_PROMO_CODE) to a checkout session',
  permission: 'payments:write',
  type: CHECKOUTS,
  params: checkoutParams,
  body: z.object({ code: z.string().min(1).max(64) }),
  idempotent: true,
  responses: { 200: resourceSchema(CHECKOUTS, checkoutAttributes) },
});
const completeRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/billing/checkout/{checkoutId}/complete',
  summary: 'Confirm the setup intent and credit the wallet (once, however often called)',
  permission: 'payments:write',
  type: CHECKOUTS,
  params: checkoutParams,
  body: z.object({ paymentMethodId: z.string().min(1).max(255), setupIntentId: z.string().min(1).max(255) }),
  idempotent: true,
  responses: { 200: resourceSchema(CHECKOUTS, checkoutAttributes) },
});
const initializeRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/payments/{provider}/initialize',
  summary: 'Initialize a payment with a provider (stripe or paystack): its authorization URL and our reference',
  permission: 'payments:write',
  type: PAYMENTS,
  params: z.object({ provider: z.string().min(1).max(64) }),
  body: initializeBody,
  idempotent: true,
  responses: { 201: resourceSchema(PAYMENTS, paymentAttributes) },
});
const stripeInitializeRoute = route({
  ...initializeRoute,
  path: '/v1/payments/stripe-initialize',
  summary: 'Alias of POST /v1/payments/stripe/initialize',
  params: undefined,
});
const verifyRoute = route({
  ...project,
  method: 'POST',
  path: '/v1/payments/verify',
  summary: 'Verify a payment with its provider and settle it (once, however often called or whatever webhook arrives)',
  permission: 'payments:write',
  type: PAYMENTS,
  body: z
    .object({ paymentIntentId: z.string().min(1).max(255).optional().describe('The reference initialize answered'), reference: z.string().min(1).max(255).optional().describe('Same as paymentIntentId') })
    .refine((b) => b.paymentIntentId || b.reference, { message: 'paymentIntentId is required', path: ['paymentIntentId'] })
    .meta({ minProperties: 1 }),
  idempotent: true,
  responses: { 200: resourceSchema(PAYMENTS, paymentAttributes) },
});
const setPromoRoute = route({
  method: 'PUT',
  path: '/v1/admin/billing/promos/{code}',
  summary: 'Create or change a promo code (platform admin only; an event-sourced table)',
  tag: 'Admin',
  auth: 'admin',
  type: PROMOS,
  params: z.object({ code: z.string().regex(PROMO_CODE_PATTERN, '2 to 64 upper-case letters, digits, _ or -') }),
  body: z.object({ amountCents: cents, currency, active: z.boolean().default(true), description: z.string().min(1).max(500).optional() }),
  responses: { 200: resourceSchema(PROMOS, promoAttributes) },
});

@Controller()
export class PaymentsController extends BusController {
  @ApiRoute(setupIntentRoute)
  async setupIntent(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof setupIntentRoute>['body']) {
    const name = body.provider ?? (body.currency === 'NGN' ? 'paystack' : 'stripe');
    const started = await this.commands.execute(new StartCheckoutCommand(dataScopeOf(principal), name, body.amountCents, body.currency, commandContext(req, principal)));
    // Run again after a crash lost the answer (DECISIONS 5): the provider's client secret was never stored.
    if (started.clientSecret === undefined) return { ...checkoutDocument(started), meta: { clientSecret: 'Not shown: the answer that carried it was lost in an outage. Start a new checkout session.' } };
    return checkoutDocument(started);
  }

  @ApiRoute(checkoutPromoRoute)
  async promo(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof checkoutPromoRoute>['params'], @Parsed('body') body: RouteInput<typeof checkoutPromoRoute>['body']) {
    return checkoutDocument(await this.commands.execute(new ApplyCheckoutPromoCommand(dataScopeOf(principal), params.checkoutId, body.code, commandContext(req, principal))));
  }

  @ApiRoute(completeRoute)
  async complete(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof completeRoute>['params'], @Parsed('body') body: RouteInput<typeof completeRoute>['body']) {
    return checkoutDocument(await this.commands.execute(new CompleteCheckoutCommand(dataScopeOf(principal), params.checkoutId, body.setupIntentId, body.paymentMethodId, commandContext(req, principal))));
  }

  @ApiRoute(initializeRoute)
  initialize(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof initializeRoute>['params'], @Parsed('body') body: RouteInput<typeof initializeRoute>['body']) {
    const name = PAYMENT_PROVIDERS.find((p) => p === params.provider);
    if (!name) throw notFound(`Unknown payment provider ${params.provider}`);
    return this.initializeWith(req, principal, name, body);
  }

  @ApiRoute(stripeInitializeRoute)
  stripeInitialize(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof initializeRoute>['body']) {
    return this.initializeWith(req, principal, 'stripe', body);
  }

  private async initializeWith(req: FastifyRequest, principal: Principal, name: (typeof PAYMENT_PROVIDERS)[number], body: RouteInput<typeof initializeRoute>['body']) {
    const projectId = dataScopeOf(principal);
    const email = body.email ?? `billing+${projectId}@payments.invalid`;
    return paymentDocument(await this.commands.execute(new InitializePaymentCommand(projectId, name, body.amountCents, body.currency ?? PROVIDER_CURRENCY[name], email, commandContext(req, principal))));
  }

  @ApiRoute(verifyRoute)
  async verify(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof verifyRoute>['body']) {
    return paymentDocument(await this.commands.execute(new VerifyPaymentCommand(dataScopeOf(principal), (body.paymentIntentId ?? body.reference)!, commandContext(req, principal))));
  }

  @ApiRoute(setPromoRoute)
  async setPromo(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof setPromoRoute>['params'], @Parsed('body') body: RouteInput<typeof setPromoRoute>['body']) {
    const p = await this.commands.execute(new SetPromoCodeCommand(params.code, body.amountCents, body.currency, body.active, body.description ?? null, commandContext(req, principal)));
    return resource(PROMOS, p.code, { code: p.code, amountCents: p.amountCents, currency: p.currency, active: p.active, description: p.description, setAt: p.setAt });
  }
}
