import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { BillingEventTypes, exchangeRateStream, walletId, walletStream, type ConversionRecord, type CreditSource, type DebitSource, type ExchangeRateSet, type WalletEvent, type WalletReferenceUsed } from '../../libs/domain/billing/events';
import { exchangeRateDecider, rateInForce } from '../../libs/domain/billing/exchange-rate.decider';
import { CURRENCIES, type Currency } from '../../libs/domain/billing/money';
import { planConversion, type WalletCommand } from '../../libs/domain/billing/wallet.decider';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { listResult, type ListResult } from '../../libs/application/src/views';
import { billingCreditsProjection, type CreditDoc } from '../../projections/billing-credits/billing-credits.projection';
import { billingWalletsProjection, emptyWallet, type WalletDoc } from '../../projections/billing-wallets/billing-wallets.projection';
import { exchangeRatesProjection, rateId } from '../../projections/exchange-rates/exchange-rates.projection';
import { WALLET_CONVERSION, writeWallet } from './wallet-writes';
import type { PortsOf } from '../../libs/runtime/src/ports';

/** Where a movement comes from: every credit and debit carries its source and reference (DECISIONS 16). */
export interface MovementOrigin<S extends string> {
  source: S;
  /** Unique per wallet and direction: the same reference never moves money twice. */
  reference: string;
  description?: string | null;
}

/** A wallet after a movement, and the movement (`applied: false`: its reference had moved money already; nothing changed). */
export interface WalletMovement {
  wallet: WalletDoc;
  movement: { kind: 'credit' | 'debit'; id: string; amountCents: number; source: string; reference: string; applied: boolean; position: number | null };
}

export class CreditWalletCommand extends Command<WalletMovement> {
  constructor(
    readonly projectId: string,
    readonly currency: Currency,
    readonly amountCents: number,
    readonly origin: MovementOrigin<CreditSource>,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/**
 * Debits a wallet: 422 INSUFFICIENT_FUNDS beyond its balance, also under concurrent debits. Reusable
 * by other billing commands (an invoice's payment: source `invoice`, reference the invoice id, which
 * then pays once however often it is retried).
 */
export class DebitWalletCommand extends Command<WalletMovement> {
  constructor(
    readonly projectId: string,
    readonly currency: Currency,
    readonly amountCents: number,
    readonly origin: MovementOrigin<DebitSource>,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export interface ConversionView {
  conversion: ConversionRecord;
  applied: boolean;
  from: WalletDoc;
  to: WalletDoc;
}

export class ConvertCurrencyCommand extends Command<ConversionView> {
  constructor(
    readonly projectId: string,
    readonly fromCurrency: Currency,
    readonly toCurrency: Currency,
    readonly amountCents: number,
    readonly reference: string | null,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export interface RateView {
  from: Currency;
  to: Currency;
  rate: string;
  /** `admin`: set by PUT /v1/admin/billing/rates; `default`: the built-in table. */
  origin: 'admin' | 'default';
  updatedAt: string | null;
}

export class SetExchangeRateCommand extends Command<RateView> {
  constructor(
    readonly from: Currency,
    readonly to: Currency,
    readonly rate: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class GetWallets extends Query<WalletDoc[]> {
  constructor(readonly projectId: string) {
    super();
  }
}

export class GetExchangeRate extends Query<RateView> {
  constructor(
    readonly from: Currency,
    readonly to: Currency,
  ) {
    super();
  }
}

export class ListCredits extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ currency?: Currency; source?: CreditSource }>,
    readonly toResource: (doc: CreditDoc) => { id: string; type: string; attributes: object },
  ) {
    super();
  }
}

/** A project's wallet as of `position` (its last write), an empty one when it never moved. */
async function walletAt(ports: PortsOf<'now' | 'readBack'>, projectId: string, currency: Currency, position: number | null): Promise<WalletDoc> {
  return (await ports.readBack(billingWalletsProjection, walletStream(projectId, currency), walletId(projectId, currency), position)) ?? emptyWallet(projectId, currency, ports.now());
}

/**
 * The one write path of a wallet: fold its stream, decide, append at the expected revision; a lost race
 * is retried on the fresh balance (each round of concurrent writers to one wallet has one winner).
 */
export async function moveWallet(ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>, command: WalletCommand, context: CommandContext): Promise<WalletMovement> {
  const result = await writeWallet(ports.events, command, context);
  const credit = command.type === 'CreditWallet';
  const id = credit ? command.creditId : command.debitId;
  const existing = (result.repeatOf?.data as WalletReferenceUsed['data'] | undefined)?.movementId;
  const applied = result.position !== null;
  await ports.waitForProjections(result.position, [billingWalletsProjection.name, billingCreditsProjection.name]);
  const wallet = await walletAt(ports, command.projectId, command.currency, result.position);
  return { wallet, movement: { kind: credit ? 'credit' : 'debit', id: applied ? id : (existing ?? id), amountCents: command.amountCents, source: command.source, reference: command.reference, applied, position: result.position } };
}

@CommandHandler(CreditWalletCommand)
export class CreditWalletHandler implements ICommandHandler<CreditWalletCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>) {}

  execute({ projectId, currency, amountCents, origin, context }: CreditWalletCommand): Promise<WalletMovement> {
    const creditId = requestScopedId(context, 'credit');
    const command: WalletCommand = { type: 'CreditWallet', projectId, currency, amountCents, creditId, source: origin.source, reference: origin.reference || creditId, description: origin.description ?? null, conversion: null, now: this.ports.now() };
    return moveWallet(this.ports, command, context);
  }
}

@CommandHandler(DebitWalletCommand)
export class DebitWalletHandler implements ICommandHandler<DebitWalletCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>) {}

  execute({ projectId, currency, amountCents, origin, context }: DebitWalletCommand): Promise<WalletMovement> {
    const debitId = requestScopedId(context, 'debit');
    const command: WalletCommand = { type: 'DebitWallet', projectId, currency, amountCents, debitId, source: origin.source, reference: origin.reference || debitId, description: origin.description ?? null, conversion: null, now: this.ports.now() };
    return moveWallet(this.ports, command, context);
  }
}

/** The rate in force for a pair: its stream's newest event (the setting's truth), else the default table. */
async function currentRate(ports: PortsOf<'events'>, from: Currency, to: Currency): Promise<RateView> {
  const history = await ports.events.readStream(exchangeRateStream(from, to));
  const last = history[history.length - 1];
  if (last) return { from, to, rate: (last.data as ExchangeRateSet['data']).rate, origin: 'admin', updatedAt: (last.data as ExchangeRateSet['data']).setAt };
  return defaultRate(from, to);
}

function defaultRate(from: Currency, to: Currency): RateView {
  const rate = rateInForce(from, to, { rate: null });
  if (!rate) throw new DomainError('BAD_REQUEST', `No rate converts ${from} to ${to}`);
  return { from, to, rate, origin: 'default', updatedAt: null };
}

/**
 * One decision: the debit of the source wallet records the conversion (rate in force, both amounts);
 * the wallet-conversion process manager credits the other wallet from it (reference: the conversion
 * id). The answer waits for that credit, so it shows both balances.
 */
@CommandHandler(ConvertCurrencyCommand)
export class ConvertCurrencyHandler implements ICommandHandler<ConvertCurrencyCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, fromCurrency, toCurrency, amountCents, reference, context }: ConvertCurrencyCommand): Promise<ConversionView> {
    const { rate } = await currentRate(this.ports, fromCurrency, toCurrency);
    const conversionId = reference ?? requestScopedId(context, 'conversion');
    const planned = planConversion(conversionId, fromCurrency, toCurrency, amountCents, rate);
    const debitId = requestScopedId(context, 'debit');
    const command: WalletCommand = { type: 'DebitWallet', projectId, currency: fromCurrency, amountCents, debitId, source: 'conversion', reference: conversionId, description: `Conversion to ${toCurrency} at ${rate}`, conversion: planned, now: this.ports.now() };
    const result = await writeWallet(this.ports.events, command, context);
    if (result.position !== null) {
      const done = await this.ports.consistency.waitForSaga(WALLET_CONVERSION, result.position, walletStream(projectId, toCurrency), [billingWalletsProjection.name, billingCreditsProjection.name]);
      if (!done) this.ports.logger.warn({ conversionId, position: result.position }, 'conversion credit not visible within the consistency wait');
    }
    await this.ports.waitForProjections(result.position, [billingWalletsProjection.name]);
    // The conversion as its debit recorded it (a re-run after a crash, DECISIONS 5, at the rate of its first run), the
    // other wallet as of the credit it caused: a later movement is in neither.
    const conversion = (result.events[0]?.data as { conversion?: ConversionRecord | null } | undefined)?.conversion ?? planned;
    const [from, to] = await Promise.all([walletAt(this.ports, projectId, fromCurrency, result.position), walletAfterCredits(this.ports, projectId, toCurrency, [conversionId])]);
    return { conversion, applied: result.position !== null, from, to };
  }
}

@CommandHandler(SetExchangeRateCommand)
export class SetExchangeRateHandler implements ICommandHandler<SetExchangeRateCommand> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'waitForProjections'>) {}

  async execute({ from, to, rate, context }: SetExchangeRateCommand): Promise<RateView> {
    const setBy = String(context.metadata.actor ?? 'admin');
    const { position } = await handleCommand(this.ports.events, exchangeRateStream(from, to), exchangeRateDecider(from, to), { type: 'SetExchangeRate', from, to, rate, setBy, now: this.ports.now() }, context);
    await this.ports.waitForProjections(position, [exchangeRatesProjection.name]);
    return currentRate(this.ports, from, to);
  }
}

@QueryHandler(GetWallets)
export class GetWalletsHandler implements IQueryHandler<GetWallets> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'now' | 'projections'>) {}

  async execute({ projectId }: GetWallets): Promise<WalletDoc[]> {
    const wallets = await this.ports.projections.collection(billingWalletsProjection);
    const found = await wallets.getMany(CURRENCIES.map((c) => walletId(projectId, c)));
    const now = this.ports.now();
    return CURRENCIES.map((c) => found.find((w) => w.currency === c && w.projectId === projectId) ?? emptyWallet(projectId, c, now));
  }
}

@QueryHandler(GetExchangeRate)
export class GetExchangeRateHandler implements IQueryHandler<GetExchangeRate> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ from, to }: GetExchangeRate): Promise<RateView> {
    const doc = await (await this.ports.projections.collection(exchangeRatesProjection)).get(rateId(from, to));
    return doc ? { from, to, rate: doc.rate, origin: 'admin', updatedAt: doc.updatedAt } : defaultRate(from, to);
  }
}

@QueryHandler(ListCredits)
export class ListCreditsHandler implements IQueryHandler<ListCredits> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list, toResource }: ListCredits): Promise<ListResult<object>> {
    const filter: Record<string, string> = { projectId };
    if (list.filters.currency) filter.currency = list.filters.currency;
    if (list.filters.source) filter.source = list.filters.source;
    const { items, total } = await (await this.ports.projections.collection(billingCreditsProjection)).find({ filter, ...pageOf(list) });
    return listResult(items.map(toResource), total);
  }
}

/**
 * A wallet as a write's answer shows it: as of the last of the credits with these references (a process
 * manager's credits following the write), so a later movement is not in it (also when a re-run after a
 * crash answers, DECISIONS 5); the wallet now when none is there.
 */
export async function walletAfterCredits(ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>, projectId: string, currency: Currency, references: string[]): Promise<WalletDoc> {
  const credits = (await ports.events.readStream(walletStream(projectId, currency))).filter(
    (e) => e.type === BillingEventTypes.WalletCredited && references.includes((e.data as WalletEvent['data']).reference),
  );
  const last = credits[credits.length - 1];
  if (last) await ports.waitForProjections(last.position, [billingWalletsProjection.name]);
  return walletAt(ports, projectId, currency, last?.position ?? null);
}

export const WALLET_HANDLERS = [CreditWalletHandler, DebitWalletHandler, ConvertCurrencyHandler, SetExchangeRateHandler, GetWalletsHandler, GetExchangeRateHandler, ListCreditsHandler];
