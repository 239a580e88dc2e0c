/** Maps anything thrown (application and domain errors, zod, Nest/Fastify HTTP errors) to an ApiError: the one place codes become HTTP. */
import { HttpException } from '@nestjs/common';
import { z } from 'zod';
import { AppError, rebased } from '../../application/src/errors';
import { ApiError, ERROR_STATUS, UNAVAILABLE_RETRY_AFTER_SECONDS, codeForStatus, isErrorCode, unavailable, type ApiErrorItem } from './errors';
import { zodBodyError } from './validation';

/**
 * An application error as HTTP: its code's status, its items (one JSON:API error object each, with
 * their sources) and meta; a retry-after is the `Retry-After` header and `meta.retryAfter`, of the
 * document and of each error object (DECISIONS §1). Its pointers name fields of the use case's input;
 * `bodyPointer` is where that input sat in the request's document (`/data/attributes`, or '' for a
 * plain body), so each is answered as a pointer into the document.
 */
export function appErrorToApiError(error: AppError, bodyPointer = ''): ApiError {
  const e = rebased(error, bodyPointer) as AppError;
  const retryAfter = e.retryAfterSeconds ?? (e.code === 'UNAVAILABLE' ? UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
  if (retryAfter === undefined) return new ApiError(e.code, e.detail, { source: e.source, items: e.items, meta: e.meta });
  const items: ApiErrorItem[] = (e.items?.length ? e.items : [{ detail: e.detail, source: e.source }]).map((i) => ({ ...i, meta: { ...i.meta, retryAfter } }));
  return new ApiError(e.code, e.detail, { source: e.source, items, meta: { ...e.meta, retryAfter }, headers: { 'Retry-After': String(retryAfter) } });
}


const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_SOCKET_CLOSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
const DRIVER_ERRORS = /^(Mongo(Network|NetworkTimeout|ServerSelection|NotConnected|TopologyClosed|PoolCleared)Error|MaxRetriesPerRequestError|KafkaJSConnectionError)$/;
const DRIVER_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Connection is closed|Client has encountered a connection error|the database system is (starting up|shutting down)|terminating connection|Stream isn't writeable|connection .* closed|socket has been ended by the other party/i;

/**
 * Whether `e` (or an error it wraps) is an engine that cannot be reached: a socket refused, reset or
 * timed out, a driver's connection or server-selection error, PostgreSQL's connection-exception class
 * (08xxx) or an administrator shutdown (57P0x). Such a failure is the engine's outage, not a bug: the
 * request gets 503 UNAVAILABLE with Retry-After instead of a 500 (issue 26).
 */
export function isDependencyDown(e: unknown, depth = 0): boolean {
  // Duck-typed, not `instanceof Error`: a socket's errors may come from another realm (a VM context).
  if (typeof e !== 'object' || e === null || depth > 5) return false;
  const { code, name, message, errors, cause } = e as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string' && (NET_CODES.has(code) || /^08...$/.test(code) || /^57P0[1-3]$/.test(code))) return true;
  if ((typeof name === 'string' && DRIVER_ERRORS.test(name)) || (typeof message === 'string' && DRIVER_MESSAGES.test(message))) return true;
  if (Array.isArray(errors) && errors.some((x) => isDependencyDown(x, depth + 1))) return true;
  return isDependencyDown(cause, depth + 1);
}

const dependencyDown = (): ApiError => unavailable('A service this request needs is unavailable; retry later');

/** The shape domain code throws: `{ code, message }` with a code of the error table. */
export interface DomainErrorLike { code: string; message: string; status?: number }

export function isDomainErrorLike(e: unknown): e is DomainErrorLike {
  return typeof e === 'object' && e !== null && typeof (e as DomainErrorLike).code === 'string' && typeof (e as DomainErrorLike).message === 'string';
}

/**
 * Returns the ApiError for a known error, or `null` for an unexpected one (→ 500 INTERNAL_ERROR,
 * logged with its stack by the caller). A ZodError thrown past the edge (a handler parsing what it
 * derived, a decider re-checking its schema and keeping the ZodError as the DomainError's `cause`) is
 * a 400 in the edge's sentences, its pointers under `bodyPointer` (where the request's fields were), as
 * an AppError's pointers are.
 */
export function toApiError(e: unknown, bodyPointer = ''): ApiError | null {
  if (e instanceof ApiError) return e.code === 'UNAVAILABLE' && !e.headers?.['Retry-After'] ? withRetryAfter(e) : e;
  if (e instanceof AppError) return e.code === 'INTERNAL_ERROR' ? null : appErrorToApiError(e, bodyPointer);
  if (e instanceof z.ZodError) return zodBodyError(e, bodyPointer);
  if (e instanceof Error && e.cause instanceof z.ZodError && isDomainErrorLike(e) && e.code === 'BAD_REQUEST') return zodBodyError(e.cause, bodyPointer);
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status >= 500 && status !== 503) return null;
    const res = e.getResponse();
    const named = typeof res === 'object' && res ? (res as { code?: unknown }).code : undefined;
    const code = isErrorCode(named) ? named : codeForStatus(status);
    return new ApiError(code, status === 404 ? 'Resource not found' : e.message, { status });
  }
  if (isDomainErrorLike(e)) {
    if (isErrorCode(e.code)) {
      if (e.code === 'INTERNAL_ERROR') return null;
      return new ApiError(e.code, e.message, { status: ERROR_STATUS[e.code] });
    }
    // Fastify errors carry FST_* codes and a statusCode.
    const status = (e as { statusCode?: unknown }).statusCode ?? e.status;
    if (typeof status === 'number' && status >= 400 && status < 500) return new ApiError(codeForStatus(status), e.message, { status });
    return isDependencyDown(e) ? dependencyDown() : null;
  }
  return isDependencyDown(e) ? dependencyDown() : null;
}

function withRetryAfter(e: ApiError): ApiError {
  return appErrorToApiError(new AppError('UNAVAILABLE', e.detail, { source: e.source, items: e.items, meta: e.meta, retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS }));
}
