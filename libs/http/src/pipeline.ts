/** Fastify hooks applying the conventions to every request (auth, limits, validation, idempotency, headers, logs). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type pino from 'pino';
import { Authenticator, authorize, principalScope, readCredential } from './auth';
import { applySparseFields } from './envelope';
import { ApiError, badRequest, httpsRequired, invalidQuery, unauthorized, unavailable, ApiErrorItem } from './errors';
import { genericRecoveredResponse, IDEMPOTENCY_TTL_MS, IdempotencyStore, MAX_IDEMPOTENCY_KEY_LENGTH, requestFingerprint, type CommittedWrite, type StoredResponse } from './idempotency';
import { listResponse, parseFields, parseListQuery, stripListParams } from './list-query';
import { ListResult } from './list-result';
import { scrubUrl } from './logging';
import { recordHttpRequest } from './metrics';
import { RateLimiter, rateLimitHeaders, rateLimited } from './rate-limit';
import { findRoute, RegisteredRoute } from './route';
import { acceptsEmptyBody, unwrapBody } from './body-shape';
import { refuseUnstorable } from './hostile-input';
import { strictQuery } from './query-params';
import { BODY_PARSE, PARAMS_PARSE, QUERY_PARSE, zodBodyError, zodParamsError, zodQueryError } from './validation';
import './request-state';

export interface PipelineOptions {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  idempotencyStore: IdempotencyStore;
  logger: pino.Logger;
  trustProxy: boolean;
  tlsEnabled: boolean;
  idempotencyLockMs?: number;
  /** The application's providers (set once the Nest app exists): what a route's query credential redeems with. */
  resolve?: <T>(token: abstract new (...args: never[]) => T) => T;
}

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;
export function requestIdFor(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && SANE_ID.test(v) ? v : randomUUID();
}

const firstHeader = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim().toLowerCase();

function checkHttps(req: FastifyRequest, o: PipelineOptions): void {
  if (!o.trustProxy) return;
  const proto = firstHeader(req.headers['x-forwarded-proto']);
  if (proto ? proto !== 'https' : !o.tlsEnabled) throw httpsRequired();
}

async function authenticateAndLimit(req: FastifyRequest, reply: FastifyReply, o: PipelineOptions, route: RegisteredRoute | undefined): Promise<void> {
  const credential = readCredential(req.headers);
  req.credentialSent = !!credential;
  if (credential) {
    try {
      req.principal = await o.authenticator.authenticate(credential, req);
    } catch (e) {
      req.log.error({ err: e }, 'authenticator failed');
      throw unavailable('Authentication is temporarily unavailable');
    }
  }
  const viaQuery = route?.queryCredential;
  const value = viaQuery ? (req.query as Record<string, unknown> | undefined)?.[viaQuery.parameter] : undefined;
  if (viaQuery && typeof value === 'string' && value !== '' && o.resolve) {
    req.credentialSent = true;
    try {
      req.principal = await viaQuery.redeem(value, { get: o.resolve, headerPrincipal: req.principal ?? null });
    } catch (e) {
      req.log.error({ err: e }, 'query credential could not be redeemed');
      throw unavailable('Authentication is temporarily unavailable');
    }
  }
  if (route?.rateLimit === false) return;
  const r = await o.rateLimiter.consume(req.principal, req.ip);
  req.rateLimit = r.state;
  for (const [k, v] of Object.entries(rateLimitHeaders(r.state))) reply.header(k, v);
  if (r.exceeded) throw rateLimited(r.retryAfter);
}

function validate(req: FastifyRequest, route: RegisteredRoute): void {
  const query = strictQuery((req.query ?? {}) as Record<string, unknown>, route);
  let params: unknown = req.params;
  if (route.params) {
    const r = route.params.safeParse(req.params, PARAMS_PARSE);
    if (!r.success) throw zodParamsError(r.error);
    params = r.data;
  }
  let parsedQuery: unknown;
  let list;
  if (route.list) {
    list = parseListQuery(query, route.list, route.query);
    parsedQuery = list.filters;
    req.sparseFields = list.fields;
  } else {
    const errors: ApiErrorItem[] = [];
    req.sparseFields = parseFields(query, errors);
    if (errors.length) throw invalidQuery(errors);
    parsedQuery = query;
    if (route.query) {
      const r = route.query.safeParse(stripListParams(query), QUERY_PARSE);
      if (!r.success) throw zodQueryError(r.error);
      parsedQuery = r.data;
    }
  }
  let body: unknown = req.body;
  let bodyPointer: string | undefined;
  if (route.body) {
    const { value, pointerPrefix } = unwrapBody(req.body, route.type);
    // No body (or an empty one) is `{}` where `{}` is a valid body: an action whose body the spec
    // does not show takes none, an empty one or `{}` alike (DECISIONS 14).
    const r = value === undefined && acceptsEmptyBody(route.body) ? route.body.safeParse({}, BODY_PARSE) : route.body.safeParse(value, BODY_PARSE);
    if (!r.success) throw zodBodyError(r.error, pointerPrefix);
    body = r.data;
    bodyPointer = pointerPrefix;
  }
  req.parsed = { body, query: parsedQuery, params, list, bodyPointer };
}

/**
 * The path with its query parameters in a canonical order: the query is part of the request (e.g.
 * `POST /v1/ssh-keys?providerId=`), so the same key with another query is a different request.
 */
function canonicalTarget(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = new URLSearchParams(url.slice(at + 1));
  params.sort();
  const query = params.toString();
  return query ? `${url.slice(0, at)}?${query}` : url.slice(0, at);
}

async function claimIdempotency(req: FastifyRequest, reply: FastifyReply, o: PipelineOptions): Promise<FastifyReply | undefined> {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined || !req.apiRoute?.idempotent) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw badRequest([{ detail: `Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, source: { header: 'Idempotency-Key' } }]);
  }
  if (!req.principal) return undefined;
  const scope = principalScope(req.principal);
  const fingerprint = requestFingerprint(req.method, canonicalTarget(req.url), req.body);
  let res;
  try {
    res = await o.idempotencyStore.begin(scope, key, fingerprint, o.idempotencyLockMs ?? 5 * 60_000);
  } catch (e) {
    req.log.error({ err: e }, 'idempotency store failed');
    throw unavailable('Idempotency store unavailable');
  }
  if (res.state === 'acquired') {
    req.idempotency = { scope, key, token: res.token, fingerprint };
    return undefined;
  }
  if (res.fingerprint !== fingerprint) throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body');
  // Retry-After: the holder answers within a lease at most (a holder that died frees the key then).
  if (res.state === 'in-progress') throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed', { meta: { retryAfter: 1 }, headers: { 'Retry-After': '1' } });
  if (res.state === 'committed' && rerunnable(req.apiRoute, res.write)) {
    // The same handler runs again as the writing request: it finds its own events and answers from them.
    req.idempotency = { scope, key, fingerprint, recovering: res.write };
    return undefined;
  }
  const response = res.state === 'completed' ? res.response : await storeRecovered(req, res.write, unrunAnswer(req.apiRoute, res.write), o);
  reply.code(response.status).header('Idempotent-Replayed', 'true');
  if (response.contentType) reply.header('content-type', response.contentType);
  return reply.send(response.body);
}

const defaultStatus = (route: RegisteredRoute): number => Object.keys(route.responses).map(Number).filter((s) => s >= 200 && s < 300).sort()[0] ?? 200;

/**
 * A committed write whose answer was lost is answered by re-running its request (DECISIONS 5): the
 * handler, run as the writing request (`recovering`), finds its own events instead of writing again
 * and answers from them. Not for a 204 route (nothing to rebuild) or a write whose request is unknown.
 */
export const rerunnable = (route: RegisteredRoute, write: CommittedWrite): boolean => !!write.requestId && defaultStatus(route) !== 204;

/**
 * The answer of a committed write that is not run again: a 204 route's empty one, else the generic
 * answer naming the write. The retry is the same request (same fingerprint), so its route is the writer's.
 */
export const unrunAnswer = (route: RegisteredRoute, write: CommittedWrite): StoredResponse => (defaultStatus(route) === 204 ? { status: 204, body: '' } : genericRecoveredResponse(write));

/** Stores a rebuilt answer unless another retry stored one first: the answer every retry replays. */
async function storeRecovered(req: FastifyRequest, write: CommittedWrite, response: StoredResponse, o: PipelineOptions): Promise<StoredResponse> {
  try {
    return o.idempotencyStore.recovered ? await o.idempotencyStore.recovered(write.scope, write.key, response) : response;
  } catch (e) {
    req.log.error({ err: e }, 'idempotency store failed');
    throw unavailable('Idempotency store unavailable');
  }
}

/**
 * The answer of a re-run (`rerunnable`): its own 2xx, stored as the key's answer (a racing retry's, if
 * that was stored first); a refusal (the re-run saw the world its first run changed) is the generic
 * answer naming the write; a 5xx is sent unstored, so that the next retry runs again.
 */
async function settleRecovered(req: FastifyRequest, reply: FastifyReply, write: CommittedWrite, payload: unknown, body: string | undefined, o: PipelineOptions): Promise<unknown> {
  if (reply.statusCode >= 500) return payload;
  const own = reply.statusCode < 300 && body !== undefined;
  if (!own) req.log.warn({ stream: write.streamId, status: reply.statusCode }, 'the re-run of a committed write was refused; answering the generic recovered answer');
  const contentType = reply.getHeader('content-type');
  let response: StoredResponse;
  try {
    response = await storeRecovered(req, write, own ? { status: reply.statusCode, body, contentType: contentType === undefined ? undefined : String(contentType) } : genericRecoveredResponse(write), o);
  } catch {
    return payload; // unstored (logged): the next retry runs again
  }
  reply.code(response.status).header('Idempotent-Replayed', 'true');
  if (response.contentType) reply.header('content-type', response.contentType);
  return response.body;
}

async function settleIdempotency(req: FastifyRequest, reply: FastifyReply, payload: unknown, o: PipelineOptions): Promise<unknown> {
  const claim = req.idempotency;
  if (!claim) return payload;
  req.idempotency = undefined;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
  if (claim.recovering) return settleRecovered(req, reply, claim.recovering, payload, body, o);
  try {
    if (reply.statusCode >= 500 || body === undefined) await o.idempotencyStore.release(claim.scope, claim.key, claim.token);
    else {
      const contentType = reply.getHeader('content-type');
      await o.idempotencyStore.complete(claim.scope, claim.key, claim.token, claim.fingerprint, { status: reply.statusCode, body, contentType: contentType === undefined ? undefined : String(contentType) }, IDEMPOTENCY_TTL_MS);
    }
  } catch (e) {
    req.log.error({ err: e }, 'idempotency store failed while settling');
  }
  return payload;
}

const wantsJsonApi = (accept: string | undefined): boolean => !!accept && /application\/vnd\.api\+json/i.test(accept);

export function installPipeline(fastify: FastifyInstance, o: PipelineOptions): void {
  fastify.decorateRequest('principal', null);
  fastify.decorateRequest('credentialSent', false);
  fastify.decorateRequest('apiRoute', null);
  fastify.decorateRequest('parsed', undefined);
  fastify.decorateRequest('sparseFields', undefined);
  fastify.decorateRequest('rateLimit', undefined);
  fastify.decorateRequest('idempotency', undefined);
  fastify.decorateRequest('startedAt', BigInt(0));

  fastify.addHook('onRequest', async (req, reply) => {
    req.startedAt = process.hrtime.bigint();
    reply.header('X-Request-Id', req.id);
    checkHttps(req, o);
    const pattern = req.routeOptions.url;
    const route = findRoute(req.method, pattern);
    await authenticateAndLimit(req, reply, o, route);
    if (pattern === undefined) return; // 404 / 405 handled by the exception filter
    req.apiRoute = route ?? null;
    if (req.apiRoute) authorize(req.apiRoute, req.method, req.principal, req.credentialSent);
    else if (!req.routeOptions.config?.public && !req.principal) throw unauthorized(req.credentialSent ? 'Invalid credentials' : 'Missing credentials');
  });

  fastify.addHook('preHandler', async (req, reply) => {
    const refusal = refuseUnstorable(req);
    if (refusal) throw refusal;
    if (!req.apiRoute) return;
    validate(req, req.apiRoute);
    return claimIdempotency(req, reply, o);
  });

  fastify.addHook('preSerialization', async (req, _reply, payload: unknown) => {
    let out = payload;
    if (out instanceof ListResult) {
      const list = req.parsed?.list ?? { page: 1, limit: out.items.length || 1, fields: req.sparseFields };
      const doc = listResponse(req, list, out.items, out.total);
      out = out.extraMeta ? { ...doc, meta: { ...doc.meta, ...out.extraMeta } } : doc;
    }
    return applySparseFields(out, req.sparseFields);
  });

  fastify.addHook('onSend', async (req, reply, payload) => {
    reply.header('X-Request-Id', req.id);
    if (req.rateLimit) for (const [k, v] of Object.entries(rateLimitHeaders(req.rateLimit))) reply.header(k, v);
    const ct = reply.getHeader('content-type');
    if (typeof ct === 'string' && ct.startsWith('application/json') && wantsJsonApi(req.headers.accept)) reply.header('content-type', 'application/vnd.api+json');
    return settleIdempotency(req, reply, payload, o);
  });

  fastify.addHook('onResponse', async (req, reply) => {
    const seconds = Number(process.hrtime.bigint() - req.startedAt) / 1e9;
    recordHttpRequest(req.method, req.routeOptions.url, reply.statusCode, seconds);
    req.log.info({ method: req.method, url: scrubUrl(req.url), statusCode: reply.statusCode, durationMs: Math.round(seconds * 1e6) / 1e3 }, 'request completed');
  });
}
