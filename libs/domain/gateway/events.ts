import type { DomainEvent } from '../shared/domain-error';
import type { Mode } from '../shared/scope';
import type { ModelPrice } from './pricing';

/** The gateway's event types (DECISIONS 19): keys, their limits, spend reservations and usage. */
export const GatewayEventTypes = {
  KeyMinted: 'gateway.KeyMinted.v1',
  KeyRevoked: 'gateway.KeyRevoked.v1',
  KeyLimitsChanged: 'gateway.KeyLimitsChanged.v1',
  SpendReserved: 'gateway.SpendReserved.v1',
  SpendSettled: 'gateway.SpendSettled.v1',
  UsageRecorded: 'gateway.UsageRecorded.v1',
  ConnectionAdded: 'gateway.ConnectionAdded.v1',
  ConnectionVerified: 'gateway.ConnectionVerified.v1',
  ConnectionDeleted: 'gateway.ConnectionDeleted.v1',
  CustomModelCreated: 'gateway.CustomModelCreated.v1',
  CustomModelChanged: 'gateway.CustomModelChanged.v1',
  CustomModelDeleted: 'gateway.CustomModelDeleted.v1',
  WaterfallSet: 'gateway.WaterfallSet.v1',
  SessionRevoked: 'gateway.SessionRevoked.v1',
} as const;

/**
 * What a key may do per minute and spend per calendar month (UTC). Money is in micro-dollars
 * (integers: 1 USD = 1,000,000), so sums never drift; null: no limit.
 */
export interface KeyLimits {
  rpm: number | null;
  monthlySpendCapMicros: number | null;
}

export const NO_LIMITS: KeyLimits = { rpm: null, monthlySpendCapMicros: null };

/** An organization key's stream: `projectId` is the data scope (`<project>` or `<project>:test`). */
export const gatewayKeyStream = (keyId: string) => `gwkey-${keyId}`;
/** One key's spend in one month (`YYYY-MM`): reservations and their settlements, appended at the expected revision. */
export const gatewayBudgetStream = (keyId: string, month: string) => `gwbudget-${keyId}:${month}`;
/** One upstream attempt's usage: the stream exists at most once, which makes recording idempotent on (request id, attempt). */
export const gatewayUsageStream = (requestId: string, attempt: number) => `gwusage-${requestId}:${attempt}`;

export type KeyMinted = DomainEvent<
  typeof GatewayEventTypes.KeyMinted,
  { keyId: string; projectId: string; name: string; prefix: string; keyHash: string; mode: Mode; limits: KeyLimits; createdAt: string; /** After it the key is refused (the uniform 401); absent or null: never. */ expiresAt?: string | null }
>;
export type KeyRevoked = DomainEvent<typeof GatewayEventTypes.KeyRevoked, { keyId: string; projectId: string; revokedAt: string }>;
export type KeyLimitsChanged = DomainEvent<typeof GatewayEventTypes.KeyLimitsChanged, { keyId: string; projectId: string; limits: KeyLimits; changedAt: string }>;
export type SpendReserved = DomainEvent<
  typeof GatewayEventTypes.SpendReserved,
  { keyId: string; projectId: string; month: string; reservationId: string; amountMicros: number; capMicros: number | null; reservedAt: string }
>;
export type SpendSettled = DomainEvent<
  typeof GatewayEventTypes.SpendSettled,
  { keyId: string; projectId: string; month: string; reservationId: string; reservedMicros: number; actualMicros: number; settledAt: string }
>;
export type UsageRecorded = DomainEvent<
  typeof GatewayEventTypes.UsageRecorded,
  {
    usageId: string;
    requestId: string;
    attempt: number;
    keyId: string;
    projectId: string;
    mode: Mode;
    model: string;
    upstream: string;
    inputTokens: number;
    outputTokens: number;
    costMicros: number;
    latencyMs: number;
    /** The attempt ended before its answer was complete (upstream failure, client gone): what was streamed is billed. */
    outcome: 'completed' | 'failed' | 'disconnected';
    day: string;
    recordedAt: string;
  }
>;

/** An upstream's wire protocol: an OpenAI-compatible (chat completions) or Anthropic-compatible (messages) HTTP API. */
export type ConnectionKind = 'openai' | 'anthropic';
/** A provider connection of an organization: its secret lives in the credential vault, events carry only the reference. */
export const gatewayConnectionStream = (connectionId: string) => `gwconn-${connectionId}`;
/** An organization's custom model, by alias within its data scope. */
export const gatewayModelStream = (scope: string, alias: string) => `gwmodel-${scope}:${alias}`;
/** The waterfall of one model (public or custom) within an organization's data scope. */
export const gatewayWaterfallStream = (scope: string, model: string) => `gwwaterfall-${scope}:${model}`;

/** The built-in deterministic simulator: a waterfall target every organization has without a connection. */
export const SIMULATOR_CONNECTION = 'simulator';

/** One step of a waterfall: a connection (or the simulator) and the upstream's own model name there. */
export interface WaterfallTarget {
  connectionId: string;
  model: string;
}

export type ConnectionAdded = DomainEvent<
  typeof GatewayEventTypes.ConnectionAdded,
  { connectionId: string; projectId: string; name: string; kind: ConnectionKind; baseUrl: string; secretRef: string; createdAt: string }
>;
export type ConnectionVerified = DomainEvent<
  typeof GatewayEventTypes.ConnectionVerified,
  { connectionId: string; projectId: string; ok: boolean; models: number | null; error: string | null; verifiedAt: string }
>;
export type ConnectionDeleted = DomainEvent<typeof GatewayEventTypes.ConnectionDeleted, { connectionId: string; projectId: string; deletedAt: string }>;

/**
 * An organization's model row (DECISIONS 19): `custom`, an alias of an upstream model at its own
 * price; `local`, a model served by an upstream the organization runs itself (one of its
 * connections, never the simulator), named as that upstream names it, at the price it sets (zero
 * unless it says). Events written before `kind` existed are custom models.
 */
export type OrgModelKind = 'custom' | 'local';

export type CustomModelFields = {
  kind?: OrgModelKind;
  connectionId: string;
  upstreamModel: string;
  price: ModelPrice;
  maxOutputTokens: number;
};
export type CustomModelCreated = DomainEvent<typeof GatewayEventTypes.CustomModelCreated, { projectId: string; alias: string; createdAt: string } & CustomModelFields>;
export type CustomModelChanged = DomainEvent<typeof GatewayEventTypes.CustomModelChanged, { projectId: string; alias: string; changes: Partial<CustomModelFields>; changedAt: string }>;
export type CustomModelDeleted = DomainEvent<typeof GatewayEventTypes.CustomModelDeleted, { projectId: string; alias: string; deletedAt: string }>;
export type WaterfallSet = DomainEvent<typeof GatewayEventTypes.WaterfallSet, { projectId: string; model: string; targets: WaterfallTarget[]; setAt: string }>;

/** A revoked session (DELETE /api/session): its stream exists once the session is revoked; every gateway process reads it. */
export const gatewaySessionStream = (sessionId: string) => `gwsession-${sessionId}`;
export type SessionRevoked = DomainEvent<typeof GatewayEventTypes.SessionRevoked, { sessionId: string; projectId: string; revokedAt: string }>;
