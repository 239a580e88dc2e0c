/** Maps anything thrown (ApiError, domain errors, zod, Nest/Fastify HTTP errors) to an ApiError. */
import { HttpException } from '@nestjs/common';
import { z } from 'zod';
import { ApiError, ERROR_STATUS, codeForStatus, isErrorCode } from './errors';
import { zodBodyError } from './validation';
import type { DomainErrorCode } from '../../domain/shared/domain-error';

/** Every code the domain may refuse with has its status here (a new code without one does not compile). */
export const DOMAIN_ERROR_STATUS: Record<DomainErrorCode, number> = ERROR_STATUS;

/** The shape domain code throws: `{ code, message }` with a code of the error table. */
export interface DomainErrorLike { code: string; message: string; status?: number }

export function isDomainErrorLike(e: unknown): e is DomainErrorLike {
  return typeof e === 'object' && e !== null && typeof (e as DomainErrorLike).code === 'string' && typeof (e as DomainErrorLike).message === 'string';
}

/**
 * Returns the ApiError for a known error, or `null` for an unexpected one (→ 500 INTERNAL_ERROR,
 * logged with its stack by the caller). A ZodError thrown past the edge (a handler parsing what it
 * derived, a decider re-checking its schema and keeping the ZodError as the DomainError's `cause`) is
 * a 400 in the edge's sentences, its pointers under `bodyPointer` (where the request's fields were).
 */
export function toApiError(e: unknown, bodyPointer = ''): ApiError | null {
  if (e instanceof ApiError) return e;
  if (e instanceof z.ZodError) return zodBodyError(e, bodyPointer);
  if (e instanceof Error && e.cause instanceof z.ZodError && isDomainErrorLike(e) && e.code === 'BAD_REQUEST') return zodBodyError(e.cause, bodyPointer);
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status >= 500 && status !== 503) return null;
    const res = e.getResponse();
    const code = typeof res === 'object' && res && isErrorCode((res as { code?: unknown }).code) ? (res as { code: string }).code : codeForStatus(status);
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
    return null;
  }
  return null;
}
