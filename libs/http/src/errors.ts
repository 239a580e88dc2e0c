/** The HTTP status of every error code (spec §7 + DECISIONS §1) and the ApiError type. */
import { isErrorCode, type ErrorCode, type ErrorItem, type ErrorSource } from '../../application/src/errors';

export { isErrorCode, type ErrorCode, type ErrorSource };

/** Keyed by the one closed union of codes: a code without a status, or a status for no code, does not compile. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  BAD_REQUEST: 400,
  INVALID_QUERY: 400,
  UNSUPPORTED_PROVIDER: 400,
  RETRY_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  HTTPS_REQUIRED: 403,
  NOT_FOUND: 404,
  PROVIDER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  INVALID_STATE: 409,
  CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_PLAN: 422,
  INVALID_REGION: 422,
  INVALID_OS: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  INSUFFICIENT_FUNDS: 422,
  INVALID_PROMO_CODE: 422,
  RATE_LIMITED: 429,
  RESEND_TOO_SOON: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
};

/** Fallback code for a bare HTTP status (e.g. a Nest HttpException or a Fastify error). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE', 429: 'RATE_LIMITED', 500: 'INTERNAL_ERROR', 503: 'UNAVAILABLE',
};

export function codeForStatus(status: number): ErrorCode {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

/** One JSON:API error object (`status` is a string on the wire). */
export interface ErrorObject {
  status: string;
  code: ErrorCode;
  detail: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
}

export type ApiErrorItem = ErrorItem;

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly source?: ErrorSource;
  /** Extra objects when one response carries several errors (e.g. one per invalid field). */
  readonly items?: ApiErrorItem[];
  /** Top-level `meta` of the error document (e.g. `{ retryAfter }` on 429). */
  readonly meta?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    opts: { status?: number; source?: ErrorSource; items?: ApiErrorItem[]; meta?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.detail = detail;
    this.status = opts.status ?? ERROR_STATUS[code];
    this.source = opts.source;
    this.items = opts.items;
    this.meta = opts.meta;
    this.headers = opts.headers;
  }

  /** JSON:API error objects of this error. */
  toErrorObjects(): ErrorObject[] {
    const list: ApiErrorItem[] = this.items?.length ? this.items : [{ detail: this.detail, source: this.source }];
    return list.map((i) => {
      const o: ErrorObject = { status: String(this.status), code: i.code ?? this.code, detail: i.detail };
      if (i.source) o.source = i.source;
      if (i.meta) o.meta = i.meta;
      return o;
    });
  }
}

// ---------------------------------------------------------------- the edge's own refusals (use cases throw libs/application's AppError)
export const badRequest = (errors: ApiErrorItem[] | string, code: ErrorCode = 'BAD_REQUEST'): ApiError =>
  typeof errors === 'string'
    ? new ApiError(code, errors)
    : new ApiError(code, errors[0]?.detail ?? 'Invalid request', { items: errors, source: errors[0]?.source });
export const invalidQuery = (errors: ApiErrorItem[]): ApiError => badRequest(errors, 'INVALID_QUERY');
export const unauthorized = (detail = 'Missing or invalid credentials'): ApiError => new ApiError('UNAUTHORIZED', detail);
export const forbidden = (detail = 'Insufficient permissions'): ApiError => new ApiError('FORBIDDEN', detail);
export const notFound = (detail = 'Resource not found'): ApiError => new ApiError('NOT_FOUND', detail);
/** What a 503 tells a client to wait when the refusal names no time of its own. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** 503 UNAVAILABLE: always with `Retry-After` and `meta.retryAfter` (DECISIONS §1), so a client knows when to come back. */
export const unavailable = (detail = 'A dependency is unavailable', retryAfter = UNAVAILABLE_RETRY_AFTER_SECONDS): ApiError =>
  new ApiError('UNAVAILABLE', detail, { items: [{ detail, meta: { retryAfter } }], meta: { retryAfter }, headers: { 'Retry-After': String(retryAfter) } });
export const httpsRequired = (): ApiError => new ApiError('HTTPS_REQUIRED', 'HTTPS is required');
export const methodNotAllowed = (method: string, allow: string[]): ApiError =>
  new ApiError('METHOD_NOT_ALLOWED', `Method ${method} is not allowed on this resource`, { headers: { Allow: allow.join(', ') } });
export const internalError = (requestId: string): ApiError =>
  new ApiError('INTERNAL_ERROR', `An unexpected error occurred (request id ${requestId})`);
