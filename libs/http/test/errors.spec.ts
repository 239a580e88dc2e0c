/**
 * The one error taxonomy (spec §7, DECISIONS §1): every code of the closed union has exactly one
 * HTTP status, and an application error reaches the wire through one mapping at the edge.
 */
import type { FastifyReply } from 'fastify';
import { AppError, badRequest, ERROR_CODES, notFound, rateLimited as appRateLimited, type ErrorCode } from '../../application/src/errors';
import { DOMAIN_ERROR_CODES, DomainError } from '../../domain/shared/domain-error';
import { ApiError, ERROR_STATUS } from '../src/errors';
import { sendApiError } from '../src/exception-filter';
import { rateLimited } from '../src/rate-limit';
import { toApiError } from '../src/to-api-error';

// A status table missing a code, or naming a code outside the union, does not compile (checked by `tsc`).
// @ts-expect-error RATE_LIMITED (and the rest) have no status
const missing: Record<ErrorCode, number> = { BAD_REQUEST: 400 };
// @ts-expect-error not a code of the union
const misspelt: Record<ErrorCode, number> = { ...ERROR_STATUS, NOT_FOUNDD: 404 };
// @ts-expect-error an application error's code is closed too
const open = () => new AppError('NOT_FOUNDD', 'x');
void [missing, misspelt, open];

/** What `sendApiError` writes: status, headers and the JSON:API document. */
function wire(err: ApiError): { status: number; headers: Record<string, string>; body: unknown } {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const reply = {
    status: (s: number) => ((out.status = s), reply),
    header: (k: string, v: string) => ((out.headers[k] = v), reply),
    send: (b: unknown) => ((out.body = JSON.parse(JSON.stringify(b))), reply),
  };
  sendApiError(reply as unknown as FastifyReply, err);
  return out;
}

const edge = (e: unknown): ApiError => {
  const api = toApiError(e);
  if (!api) throw new Error('expected a known error');
  return api;
};

describe('error codes and their statuses', () => {
  it('gives every code of the union one HTTP error status, and no status to anything else', () => {
    for (const code of ERROR_CODES) {
      expect([code, Number.isInteger(ERROR_STATUS[code]) && ERROR_STATUS[code] >= 400 && ERROR_STATUS[code] <= 599]).toEqual([code, true]);
    }
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...new Set(ERROR_CODES)].sort());
  });

  it('holds the domain’s codes in the one union, once each', () => {
    expect(ERROR_CODES).toEqual(expect.arrayContaining([...DOMAIN_ERROR_CODES]));
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('keeps the statuses the spec and the rulings table', () => {
    expect(ERROR_STATUS).toMatchObject({
      INVALID_PLAN: 422, INVALID_REGION: 422, INVALID_OS: 422, RETRY_FAILED: 400, INVALID_STATE: 409,
      PROVIDER_NOT_FOUND: 404, UNSUPPORTED_PROVIDER: 400, RATE_LIMITED: 429, UNAVAILABLE: 503, INTERNAL_ERROR: 500,
    });
  });
});

describe('an application error at the HTTP edge', () => {
  it('answers one error object per item, each with its pointer, under its code’s status', () => {
    const e = badRequest([
      { detail: 'name is required', source: { pointer: '/data/attributes/name' } },
      { detail: 'region must differ', source: { pointer: '/data/attributes/region' }, meta: { allowed: ['fra1'] } },
    ]);
    expect(wire(edge(e))).toEqual({
      status: 400,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: {
        errors: [
          { status: '400', code: 'BAD_REQUEST', detail: 'name is required', source: { pointer: '/data/attributes/name' } },
          { status: '400', code: 'BAD_REQUEST', detail: 'region must differ', source: { pointer: '/data/attributes/region' }, meta: { allowed: ['fra1'] } },
        ],
      },
    });
  });

  it('keeps a single error’s source (pointer, parameter or header) and the document’s meta', () => {
    const byField = new AppError('NOT_FOUND', 'Database d1 not found', { source: { pointer: '/data/attributes/databaseId' } });
    expect(wire(edge(byField)).body).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', detail: 'Database d1 not found', source: { pointer: '/data/attributes/databaseId' } }] });
    const byParameter = new AppError('UNSUPPORTED_PROVIDER', 'Provider p does not support volumes', { source: { parameter: 'providerId' }, meta: { capability: 'volumes' } });
    expect(wire(edge(byParameter)).body).toEqual({
      errors: [{ status: '400', code: 'UNSUPPORTED_PROVIDER', detail: 'Provider p does not support volumes', source: { parameter: 'providerId' } }],
      meta: { capability: 'volumes' },
    });
    const byHeader = new AppError('BAD_REQUEST', 'bad key', { source: { header: 'Idempotency-Key' } });
    expect(wire(edge(byHeader)).body).toEqual({ errors: [{ status: '400', code: 'BAD_REQUEST', detail: 'bad key', source: { header: 'Idempotency-Key' } }] });
    expect(wire(edge(notFound('Job not found')))).toMatchObject({ status: 404, body: { errors: [{ status: '404', code: 'NOT_FOUND', detail: 'Job not found' }] } });
  });

  it('turns a retry-after into the Retry-After header and meta.retryAfter, as the rate limiter answers', () => {
    const answer = wire(edge(appRateLimited(42)));
    const detail = 'Too many requests; retry after 42 seconds';
    expect(answer).toEqual({
      status: 429,
      headers: { 'Retry-After': '42', 'content-type': 'application/json; charset=utf-8' },
      body: { errors: [{ status: '429', code: 'RATE_LIMITED', detail, meta: { retryAfter: 42 } }], meta: { retryAfter: 42 } },
    });
    expect(wire(rateLimited(42))).toEqual(answer);
  });

  it('answers an application INTERNAL_ERROR as an unexpected error (no detail leaks), and a domain error by its code', () => {
    expect(toApiError(new AppError('INTERNAL_ERROR', 'secret path /var/x'))).toBeNull();
    expect(wire(edge(new DomainError('INVALID_PLAN', 'Unknown plan p1'))).body).toEqual({ errors: [{ status: '422', code: 'INVALID_PLAN', detail: 'Unknown plan p1' }] });
  });
});
