import type { RecordedEvent } from '../../eventstore/src/event-store.port';
import { modeOfScope, projectOfScope } from '../../domain/shared/scope';

/**
 * CloudEvents 1.0 structured-mode JSON for one recorded event.
 * Extension attribute names follow the spec: lower-case a-z and 0-9 only.
 */
export interface CloudEvent<D = Record<string, unknown>> {
  specversion: '1.0';
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  data: D;
  /** Global position in the event store's log. */
  position: number;
  /** Revision of the event inside its stream (0-based). */
  streamrevision: number;
  correlationid?: string;
  causationid?: string;
  /** False for an event of test mode (metadata.mode `test`, DECISIONS 21); true otherwise. */
  livemode: boolean;
}

/**
 * One vocabulary (ARCHITECTURE, "One vocabulary"): an event type is `<context>.<Name>.v<N>`, and its
 * prefix names both its bounded context and its topic, `<topicPrefix>.<context>.events.v1`
 * (`billing.InvoicePaid.v1` → `cloud.billing.events.v1`). No table to keep: a context's module lists
 * its event types (contexts/registrations.ts), and tests check that every type and every
 * stream seen in the log belongs to exactly one registered context.
 */

/**
 * Event type prefixes that are the service's own bookkeeping, never published: `idempotency` (the
 * Idempotency-Key records kept as streams where the event store has no tables, EventStoreDB),
 * `platform` (`platform-bootstrap`, the guard that makes the first start's bootstrap happen once per
 * store; the project and keys it makes are identity's events) and `outbox` (the schedule and attempts
 * of effects on `effect-<id>` streams; what an effect achieved is its context's own event).
 */
export const INTERNAL_CONTEXTS: readonly string[] = Object.freeze(['idempotency', 'platform', 'outbox']);

/** Bounded context of an event type (or of an event): the type's prefix, the part before the first '.'. */
export function contextOf(event: Pick<RecordedEvent, 'type'> | string): string {
  const type = typeof event === 'string' ? event : event.type;
  const dot = type.indexOf('.');
  return dot === -1 ? type : type.slice(0, dot);
}

/** Whether an event is the service's own bookkeeping (its type's prefix is internal), never published. */
export function isInternal(event: Pick<RecordedEvent, 'type'> | string): boolean {
  return INTERNAL_CONTEXTS.includes(contextOf(event));
}

/** Topic of a context: `<prefix>.<context>.events.v1`. */
export function topicForContext(context: string, topicPrefix = 'cloud'): string {
  return `${topicPrefix}.${context}.events.v1`;
}

/** Topic an event is published to: `<prefix>.<its type's prefix>.events.v1`. */
export function topicOf(event: Pick<RecordedEvent, 'type'> | string, topicPrefix = 'cloud'): string {
  return topicForContext(contextOf(event), topicPrefix);
}

/** The topics of these contexts (sorted, once each; internal ones left out). */
export function allTopics(contexts: readonly string[], topicPrefix = 'cloud'): string[] {
  return [...new Set(contexts)].filter((c) => !INTERNAL_CONTEXTS.includes(c)).sort().map((c) => topicForContext(c, topicPrefix));
}

/**
 * Keys never copied downstream, compared case-insensitively. Events should not hold secrets at all;
 * this is defence in depth.
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set(
  [
    'apiKey',
    'key',
    'secret',
    'password',
    'credentials',
    'token',
    'keyHash',
    'tokenHash',
    'accessToken',
    'refreshToken',
    'clientSecret',
    'privateKey',
    'secretKey',
    'passwordHash',
  ].map((k) => k.toLowerCase()),
);

export function isSecretKey(name: string): boolean {
  return SECRET_KEYS.has(name.toLowerCase());
}

/**
 * `value` without any object key named like a secret (at any depth, inside arrays too). Returns the
 * value itself when it holds no such key (the common case: events never hold secrets), a stripped
 * deep copy otherwise; the input is never modified.
 */
export function stripSecrets<T>(value: T): T {
  return hasSecret(value, 0) ? (strip(value, 0) as T) : value;
}

function hasSecret(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > 64) return true; // let strip() cut pathological nesting
  if (Array.isArray(value)) {
    for (const v of value) if (hasSecret(v, depth + 1)) return true;
    return false;
  }
  if (value instanceof Date) return false;
  for (const k in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
    if (isSecretKey(k) || hasSecret((value as Record<string, unknown>)[k], depth + 1)) return true;
  }
  return false;
}

function strip(value: unknown, depth: number): unknown {
  if (depth > 64) return null; // pathological nesting: drop rather than recurse forever
  if (Array.isArray(value)) return value.map((v) => strip(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    if (value instanceof Date) return value.toISOString();
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (isSecretKey(k)) continue;
      out[k] = strip(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** Maps a recorded event to a CloudEvents 1.0 structured JSON object. */
export function toCloudEvent(event: RecordedEvent): CloudEvent {
  const metadata = stripSecrets(event.metadata ?? { schemaVersion: 1 });
  // The data scope (`<project>:test` in test mode) leaves the service as the bare project and `livemode`.
  const projectId = typeof metadata.projectId === 'string' && metadata.projectId.length > 0 ? projectOfScope(metadata.projectId) : null;
  const stripped = stripSecrets(event.data ?? {});
  const data = typeof stripped.projectId === 'string' ? { ...stripped, projectId: projectOfScope(stripped.projectId) } : stripped;
  const ce: CloudEvent = {
    specversion: '1.0',
    id: event.id,
    type: event.type,
    source: projectId ? `/v1/projects/${encodeURIComponent(projectId)}` : '/cloud-api',
    subject: event.streamId,
    time: event.recordedAt,
    datacontenttype: 'application/json',
    data,
    position: event.position,
    streamrevision: event.revision,
    livemode: metadata.mode !== 'test' && modeOfScope(typeof metadata.projectId === 'string' ? metadata.projectId : null) !== 'test',
  };
  if (typeof metadata.correlationId === 'string' && metadata.correlationId) ce.correlationid = metadata.correlationId;
  if (typeof metadata.causationId === 'string' && metadata.causationId) ce.causationid = metadata.causationId;
  return ce;
}

/** The CloudEvents JSON text of an event (the Kafka message value). */
export function serializeCloudEvent(event: RecordedEvent): string {
  return JSON.stringify(toCloudEvent(event));
}

export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';
