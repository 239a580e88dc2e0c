/**
 * What a use case fails with, whatever transport called it (HTTP, the batch fan-out, timers, the
 * CLI): an application error whose code is one of ONE closed union, the spec's §7 plus the rulings
 * (DECISIONS §1 onwards). The HTTP edge (libs/http) gives every code its status in one table typed
 * by this union, so a code without a status does not compile, and a misspelt code does not either.
 */
import { DOMAIN_ERROR_CODES } from '../../domain/shared/domain-error';

/** Every error code. The domain's own refusals are a part of it; the rest only the application and its edges raise. */
export const ERROR_CODES = [
  ...DOMAIN_ERROR_CODES,
  'INVALID_QUERY',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'HTTPS_REQUIRED',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'IDEMPOTENCY_IN_PROGRESS',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  /** An invitation resent within a minute of its last send (DECISIONS 15): not the key's rate limit. */
  'RESEND_TOO_SOON',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

/**
 * Which part of the request an error is about: a JSON pointer into the body, a path or query
 * parameter, or a header (the JSON:API error `source`). An AppError's `pointer` names a field of the
 * use case's own input (`/cidr`, `/nodePools/0/plan`), not of any transport's document: whoever knows
 * where that input sat (the HTTP edge's `/data/attributes`, an estimate's item) rebases it once
 * (`rebased`).
 */
export interface ErrorSource { pointer?: string; parameter?: string; header?: string }

/** One of several errors of one refusal (e.g. one per invalid field); its code defaults to the error's. */
export interface ErrorItem { code?: ErrorCode; detail: string; source?: ErrorSource; meta?: Record<string, unknown> }

export interface AppErrorOptions {
  source?: ErrorSource;
  /** Several errors at once, each with its own detail and source; the first one's is the error's. */
  items?: ErrorItem[];
  meta?: Record<string, unknown>;
  /** Seconds the caller should wait before trying again (HTTP: `Retry-After` and `meta.retryAfter`). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** A use case's refusal. Transport-free: it names no status and no header; the edge maps it once. */
export class AppError extends Error {
  readonly source?: ErrorSource;
  readonly items?: ErrorItem[];
  readonly meta?: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    opts: AppErrorOptions = {},
  ) {
    super(detail, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.source = opts.source;
    this.items = opts.items;
    this.meta = opts.meta;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

// ---------------------------------------------------------------- the common refusals
/** BAD_REQUEST: one detail, or one item per offending field (its source names the field). */
export const badRequest = (errors: ErrorItem[] | string): AppError =>
  typeof errors === 'string'
    ? new AppError('BAD_REQUEST', errors)
    : new AppError('BAD_REQUEST', errors[0]?.detail ?? 'Invalid request', { items: errors, source: errors[0]?.source });
export const forbidden = (detail = 'Insufficient permissions'): AppError => new AppError('FORBIDDEN', detail);
export const notFound = (detail = 'Resource not found'): AppError => new AppError('NOT_FOUND', detail);
export const conflict = (detail = 'Conflict'): AppError => new AppError('CONFLICT', detail);
export const invalidState = (detail: string): AppError => new AppError('INVALID_STATE', detail);
export const unavailable = (detail = 'A dependency is unavailable'): AppError => new AppError('UNAVAILABLE', detail);
export const resendTooSoon = (retryAfterSeconds: number): AppError =>
  new AppError('RESEND_TOO_SOON', `The invitation was sent less than a minute ago; resend it after ${retryAfterSeconds} seconds`, { retryAfterSeconds });
export const rateLimited = (retryAfterSeconds: number): AppError =>
  new AppError('RATE_LIMITED', `Too many requests; retry after ${retryAfterSeconds} seconds`, { retryAfterSeconds });

const rebaseSource = (source: ErrorSource | undefined, at: string): ErrorSource | undefined =>
  source?.pointer === undefined ? source : { ...source, pointer: `${at}${source.pointer}` };

/**
 * The error with its pointers (its own and its items') placed under `at`, the JSON pointer of where
 * the input its pointers name sat in the caller's input; anything else is returned as it is. Every
 * caller that nests an input rebases once, on the way out: a use case never builds an outer pointer.
 */
export function rebased<E>(e: E, at: string): E | AppError {
  if (!(e instanceof AppError) || !at) return e;
  const items = e.items?.map((i) => ({ ...i, source: rebaseSource(i.source, at) }));
  const copy = new AppError(e.code, e.detail, { source: rebaseSource(e.source, at), items, meta: e.meta, retryAfterSeconds: e.retryAfterSeconds, cause: e.cause });
  copy.stack = e.stack;
  return copy;
}
