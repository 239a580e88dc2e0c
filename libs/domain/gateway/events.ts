import type { DomainEvent } from '../shared/domain-error';
import type { Mode } from '../shared/scope';

/** The gateway's event types (DECISIONS 19): keys, their limits, spend reservations and usage. */
export const GatewayEventTypes = {
  KeyMinted: 'gateway.KeyMinted.v1',
  KeyRevoked: 'gateway.KeyRevoked.v1',
  KeyLimitsChanged: 'gateway.KeyLimitsChanged.v1',
  SpendReserved: 'gateway.SpendReserved.v1',
  SpendSettled: 'gateway.SpendSettled.v1',
  UsageRecorded: 'gateway.UsageRecorded.v1',
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
  { keyId: string; projectId: string; name: string; prefix: string; keyHash: string; mode: Mode; limits: KeyLimits; createdAt: string }
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
