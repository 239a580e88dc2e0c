import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { walletStream } from '../../libs/domain/billing/events';
import type { Currency } from '../../libs/domain/billing/money';
import {
  checkoutDecider,
  checkoutPromoReference,
  checkoutStream,
  paymentDecider,
  paymentStream,
  promoCodeDecider,
  promoStream,
  type CheckoutState,
  type PaymentProviderName,
  type PaymentState,
  type PromoCodeSet,
} from '../../libs/domain/billing/payments';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { earlierWrite, handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { unavailable } from '../../libs/application/src/errors';
import { PaymentProviderError, SimulatedPaymentDriver, UnsupportedPaymentOperation, paymentProviders, type PaymentProvider } from '../../libs/payments/src';
import { billingCreditsProjection } from '../../projections/billing-credits/billing-credits.projection';
import { billingWalletsProjection, type WalletDoc } from '../../projections/billing-wallets/billing-wallets.projection';
import { PAYMENT_CREDITS } from './wallet-writes';
import { walletAfterCredits } from './wallets.handlers';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** Which currency each provider takes (DECISIONS 13): Stripe USD, Paystack NGN. */
export const PROVIDER_CURRENCY: Record<PaymentProviderName, Currency> = { stripe: 'USD', paystack: 'NGN' };

const drivers = new WeakMap<object, Record<PaymentProviderName, PaymentProvider>>();
const simulators: Record<PaymentProviderName, PaymentProvider> = { stripe: new SimulatedPaymentDriver('stripe'), paystack: new SimulatedPaymentDriver('paystack') };

/** The mode a command acts in (DECISIONS 21): its request's, carried in the command's context; absent means live. */
export const commandMode = (context: CommandContext): 'live' | 'test' => (context.metadata.mode === 'test' ? 'test' : 'live');

/**
 * The provider's driver for a command: in test mode always the simulator (DECISIONS 21), else this
 * deployment's (the real one where configured, else the simulator). A checkout or payment is carried
 * on by the driver that started it (`recorded`: its recorded driver), so a test-mode payment never
 * reaches the real provider whoever verifies it.
 */
export function paymentProvider(ports: PortsOf<'config'>, name: PaymentProviderName, mode: 'live' | 'test', recorded?: string): PaymentProvider {
  if (mode === 'test' || recorded === 'simulator') return simulators[name];
  let all = drivers.get(ports);
  if (!all) drivers.set(ports, (all = paymentProviders(ports.config.payments)));
  return all[name];
}

/** A provider call: its failure is the dependency's (503), an operation it lacks the client's (400). */
async function atProvider<T>(ports: PortsOf<'logger'>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UnsupportedPaymentOperation) throw new DomainError('UNSUPPORTED_PROVIDER', err.message);
    if (err instanceof PaymentProviderError) {
      ports.logger.warn({ provider: err.provider, err: err.message }, 'payment provider call failed');
      throw unavailable(`The payment provider ${err.provider} is unavailable; retry later`);
    }
    throw err;
  }
}

/**
 * Read-your-writes across the credit process manager: the wallet once it shows the credit, as of the
 * credits with these references (so a later movement is not in it, also when a re-run after a crash
 * answers, DECISIONS 5).
 */
async function afterCredit(ports: PortsOf<'consistency' | 'events' | 'now' | 'readBack' | 'waitForProjections'>, position: number | null, projectId: string, currency: Currency, references: string[]): Promise<WalletDoc> {
  if (position !== null) await ports.consistency.waitForSaga(PAYMENT_CREDITS, position, walletStream(projectId, currency), [billingWalletsProjection.name, billingCreditsProjection.name]);
  return walletAfterCredits(ports, projectId, currency, references);
}

// ---------------------------------------------------------------- checkout

export interface CheckoutView {
  checkoutId: string;
  state: CheckoutState;
  /** Only in the setup-intent answer: the provider's client secret is never stored. */
  clientSecret?: string;
  wallet?: WalletDoc;
}

export class StartCheckoutCommand extends Command<CheckoutView> {
  constructor(
    readonly projectId: string,
    readonly provider: PaymentProviderName,
    readonly amountCents: number,
    readonly currency: Currency,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class ApplyCheckoutPromoCommand extends Command<CheckoutView> {
  constructor(
    readonly projectId: string,
    readonly checkoutId: string,
    readonly code: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class CompleteCheckoutCommand extends Command<CheckoutView> {
  constructor(
    readonly projectId: string,
    readonly checkoutId: string,
    readonly setupIntentId: string,
    readonly paymentMethodId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

async function checkoutState(ports: PortsOf<'events'>, projectId: string, checkoutId: string): Promise<CheckoutState> {
  const { state } = await aggregateStream(ports.events, checkoutStream(checkoutId), checkoutDecider);
  if (!state.checkout || state.checkout.projectId !== projectId) throw new DomainError('NOT_FOUND', 'Checkout session not found');
  return state;
}

@CommandHandler(StartCheckoutCommand)
export class StartCheckoutHandler implements ICommandHandler<StartCheckoutCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'events' | 'logger' | 'now'>) {}

  async execute({ projectId, provider, amountCents, currency, context }: StartCheckoutCommand): Promise<CheckoutView> {
    const checkoutId = requestScopedId(context, 'checkout');
    // A re-run after a crash (DECISIONS 5) finds the session its first run started: no second setup intent, and no client secret (never stored).
    const earlier = await earlierWrite(this.ports.events, checkoutStream(checkoutId), checkoutDecider, context);
    if (earlier) return { checkoutId, state: earlier.state };
    const driver = paymentProvider(this.ports, provider, commandMode(context));
    const intent = await atProvider(this.ports, () => driver.createSetupIntent({ reference: checkoutId, projectId }));
    const command = { type: 'StartCheckout' as const, checkoutId, projectId, provider, driver: driver.driver, setupIntentId: intent.id, amountCents, currency, startedAt: this.ports.now() };
    const { state } = await handleCommand(this.ports.events, checkoutStream(checkoutId), checkoutDecider, command, context, { newStream: true });
    return { checkoutId, state, clientSecret: intent.clientSecret };
  }
}

@CommandHandler(ApplyCheckoutPromoCommand)
export class ApplyCheckoutPromoHandler implements ICommandHandler<ApplyCheckoutPromoCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now'>) {}

  async execute({ projectId, checkoutId, code, context }: ApplyCheckoutPromoCommand): Promise<CheckoutView> {
    await checkoutState(this.ports, projectId, checkoutId);
    // A re-run after a crash (DECISIONS 5) answers the promo its first run applied, whatever became of the code since.
    const earlier = await earlierWrite(this.ports.events, checkoutStream(checkoutId), checkoutDecider, context);
    if (earlier) return { checkoutId, state: earlier.state };
    const history = await this.ports.events.readStream(promoStream(code.toUpperCase()));
    const promo = history.length ? (history[history.length - 1].data as PromoCodeSet['data']) : null;
    if (!promo?.active) throw new DomainError('INVALID_PROMO_CODE', `Unknown promo code ${code}`);
    const command = { type: 'ApplyCheckoutPromo' as const, projectId, promo: { code: promo.code, amountCents: promo.amountCents, currency: promo.currency }, now: this.ports.now() };
    const { state } = await handleCommand(this.ports.events, checkoutStream(checkoutId), checkoutDecider, command, context);
    return { checkoutId, state };
  }
}

/** Confirms the setup intent at the provider, then records the completion once; the credit process manager credits the wallet from it. */
@CommandHandler(CompleteCheckoutCommand)
export class CompleteCheckoutHandler implements ICommandHandler<CompleteCheckoutCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'consistency' | 'events' | 'logger' | 'now' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, checkoutId, setupIntentId, paymentMethodId, context }: CompleteCheckoutCommand): Promise<CheckoutView> {
    const before = await checkoutState(this.ports, projectId, checkoutId);
    const checkout = before.checkout!;
    let confirmed = before.status === 'succeeded';
    let providerStatus = 'succeeded';
    if (!confirmed && setupIntentId === checkout.setupIntentId) {
      ({ status: providerStatus } = await atProvider(this.ports, () => paymentProvider(this.ports, checkout.provider, commandMode(context), checkout.driver).confirmSetupIntent({ setupIntentId, paymentMethodId })));
      confirmed = providerStatus === 'succeeded';
    }
    const command = { type: 'CompleteCheckout' as const, projectId, setupIntentId, paymentMethodId, confirmed, providerStatus, now: this.ports.now() };
    const { state, position } = await handleCommand(this.ports.events, checkoutStream(checkoutId), checkoutDecider, command, context);
    return { checkoutId, state, wallet: await afterCredit(this.ports, state.status === 'succeeded' ? position : null, projectId, checkout.currency, [checkoutId, checkoutPromoReference(checkoutId)]) };
  }
}

// ---------------------------------------------------------------- payments

export interface PaymentView {
  state: PaymentState;
  wallet?: WalletDoc;
}

export class InitializePaymentCommand extends Command<PaymentView> {
  constructor(
    readonly projectId: string,
    readonly provider: PaymentProviderName,
    readonly amountCents: number,
    readonly currency: Currency,
    readonly email: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class VerifyPaymentCommand extends Command<PaymentView> {
  constructor(
    readonly projectId: string,
    readonly reference: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(InitializePaymentCommand)
export class InitializePaymentHandler implements ICommandHandler<InitializePaymentCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'events' | 'logger' | 'now'>) {}

  async execute({ projectId, provider, amountCents, currency, email, context }: InitializePaymentCommand): Promise<PaymentView> {
    if (PROVIDER_CURRENCY[provider] !== currency) throw new DomainError('BAD_REQUEST', `${provider} takes ${PROVIDER_CURRENCY[provider]} payments`);
    const reference = `pay_${requestScopedId(context, 'payment').replace(/-/g, '')}`;
    // A re-run after a crash (DECISIONS 5) finds the payment its first run initialized: the provider is not asked twice.
    const earlier = await earlierWrite(this.ports.events, paymentStream(reference), paymentDecider, context);
    if (earlier) return { state: earlier.state };
    const driver = paymentProvider(this.ports, provider, commandMode(context));
    const returnUrl = `${this.ports.config.publicUrl ?? 'https://localhost'}/v1/payments/verify?reference=${reference}`;
    const init = await atProvider(this.ports, () => driver.initializePayment({ reference, projectId, amountCents, currency, email, returnUrl }));
    const command = { type: 'InitializePayment' as const, reference, projectId, provider, driver: driver.driver, amountCents, currency, providerPaymentId: init.providerPaymentId, authorizationUrl: init.authorizationUrl, initializedAt: this.ports.now() };
    const { state } = await handleCommand(this.ports.events, paymentStream(reference), paymentDecider, command, context, { newStream: true });
    return { state };
  }
}

/** Asks the provider, then settles (or fails) the payment once; a settled payment answers as it is. */
@CommandHandler(VerifyPaymentCommand)
export class VerifyPaymentHandler implements ICommandHandler<VerifyPaymentCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'config' | 'consistency' | 'events' | 'logger' | 'now' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, reference, context }: VerifyPaymentCommand): Promise<PaymentView> {
    const { state: known, position: last } = await aggregateStream(this.ports.events, paymentStream(reference), paymentDecider);
    const p = known.payment;
    if (!p || p.projectId !== projectId) throw new DomainError('NOT_FOUND', 'Payment not found');
    // Settled before (a webhook, another verify): the answer still shows the credit that follows. The
    // decider writes nothing after a settle, so its PaymentSettled is the stream's last event.
    if (known.status !== 'pending') return { state: known, wallet: await afterCredit(this.ports, known.status === 'succeeded' ? last : null, projectId, p.currency, [reference]) };
    const outcome = await atProvider(this.ports, () => paymentProvider(this.ports, p.provider, commandMode(context), p.driver).verifyPayment({ reference, providerPaymentId: p.providerPaymentId }));
    if (outcome.status === 'pending') return { state: known, wallet: await afterCredit(this.ports, null, projectId, p.currency, [reference]) };
    const now = this.ports.now();
    const command =
      outcome.status === 'succeeded'
        ? { type: 'SettlePayment' as const, via: 'verify' as const, providerEventId: null, paidAmountCents: outcome.amountCents, paidCurrency: outcome.currency, now }
        : { type: 'FailPayment' as const, via: 'verify' as const, reason: 'the provider reports the payment failed', now };
    const { state, position } = await handleCommand(this.ports.events, paymentStream(reference), paymentDecider, command, context);
    return { state, wallet: await afterCredit(this.ports, state.status === 'succeeded' ? position : null, projectId, p.currency, [reference]) };
  }
}

// ---------------------------------------------------------------- promo codes (platform admin)

export class SetPromoCodeCommand extends Command<PromoCodeSet['data']> {
  constructor(
    readonly code: string,
    readonly amountCents: number,
    readonly currency: Currency,
    readonly active: boolean,
    readonly description: string | null,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SetPromoCodeCommand)
export class SetPromoCodeHandler implements ICommandHandler<SetPromoCodeCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now'>) {}

  async execute({ code, amountCents, currency, active, description, context }: SetPromoCodeCommand): Promise<PromoCodeSet['data']> {
    const setBy = String(context.metadata.actor ?? 'admin');
    const { state } = await handleCommand(this.ports.events, promoStream(code), promoCodeDecider, { type: 'SetPromoCode', code, amountCents, currency, active, description, setBy, now: this.ports.now() }, context);
    return state.promo!;
  }
}

export const PAYMENT_HANDLERS = [StartCheckoutHandler, ApplyCheckoutPromoHandler, CompleteCheckoutHandler, InitializePaymentHandler, VerifyPaymentHandler, SetPromoCodeHandler];
