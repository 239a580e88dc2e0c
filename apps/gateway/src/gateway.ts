import { STATUS_CODES } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { PUBLIC_MODELS, publicModel } from '../../../libs/domain/gateway/catalog';
import { SIMULATOR_CONNECTION } from '../../../libs/domain/gateway/events';
import type { KeyLimits } from '../../../libs/domain/gateway/events';
import { DomainError } from '../../../libs/domain/shared/domain-error';
import { dataScope } from '../../../libs/domain/shared/scope';
import { AppError } from '../../../libs/application/src/errors';
import type { Authenticator } from '../../../libs/http/src/auth';
import { refuseUnstorable, refuseUnstorableBody, refuseUnstorableParams, refuseUnstorableQuery } from '../../../libs/http/src/hostile-input';
import { listOf, listResponse, pageOf, parseListQuery, type ListQuery } from '../../../libs/http/src/list-query';
import type { RateLimitStore } from '../../../libs/http/src/rate-limit';
import type { TlsPair } from '../../../libs/http/src/tls';
import type { Ports } from '../../../libs/runtime/src/ports';
import type { KeyHasher } from '../../../libs/runtime/src/key-hasher';
import { GATEWAY_KEYS_LIST, gatewayKeysProjection, type GatewayKeyDoc } from '../../../projections/gateway-keys/gateway-keys.projection';
import { GATEWAY_SPEND_LIST, GATEWAY_USAGE_LIST, gatewaySpendProjection, gatewayUsageProjection } from '../../../projections/gateway-usage/gateway-usage.projection';
import { BudgetLedger } from '../../../usecases/gateway/budget-ledger';
import { authenticateOrgKey, changeKeyLimits, mintKey, revokeKey, keyContext, revokeSession, sessionContext, sessionRevoked, type SessionHolder } from '../../../usecases/gateway/keys';
import { ClientGoneError, runInference, StreamBrokenError, type InferenceOutcome } from '../../../usecases/gateway/run-inference';
import { estimateTokens, inputTextOf, UpstreamError, type Upstream } from '../../../usecases/gateway/upstream.port';
import { resolveModel, type ModelRoute, type Organization } from '../../../usecases/gateway/org-catalog';
import { gatewayConnectionsProjection } from '../../../projections/gateway-connections/gateway-connections.projection';
import { gatewayCustomModelsProjection } from '../../../projections/gateway-models/gateway-models.projection';
import { registerCatalogRoutes } from './catalog-routes';
import { registerConsoleCors } from './console-cors';
import { chatBody, fromChat, fromMessages, fromResponses, messagesBody, responsesBody, type ParsedCall } from './requests';
import { httpUpstream } from './upstreams/http-upstreams';
import { badRequest, errorBody, forbidden, GatewayError, invalidKey, notFound, type Vendor } from './errors';
import { SessionCodec, sessionCookie } from './session';
import { SIMULATOR_HINTS, SimulatorUpstream } from './simulator';
import * as wire from './wire';

export interface GatewayOptions {
  ports: Ports;
  logger: pino.Logger;
  /** The cloud API's credential check (its IdentityService): sessions are exchanged for owner/admin credentials. */
  cloudAuth: Authenticator;
  hasher: KeyHasher;
  /** Counters of the per-minute limits: Redis on the server profile (exact across gateway processes). */
  rateLimits: RateLimitStore;
  tls: TlsPair;
  host: string;
  port: number;
  upstreamTimeoutMs?: number;
  /** The web console's origins, allowed for CORS with credentials on /api/* only (console-cors.ts). */
  consoleOrigins?: readonly string[];
  /**
   * Answers streamed calls with a `server-timing` header: what stood between the request and the first
   * content byte, phase by phase (the bench reads it; off by default, as it tells a client how the
   * gateway spends its time).
   */
  serverTiming?: boolean;
}

interface KeyAuth {
  kind: 'key';
  doc: GatewayKeyDoc;
}
interface SessionAuth {
  kind: 'session';
  session: SessionHolder;
}

/** The longest path segment routed (ids are at most 100 characters; a model alias of the catalog too). */
const MAX_PARAM_LENGTH = 200;

const usd = (micros: number | null) => (micros === null ? null : micros / 1_000_000);
const limitsOut = (l: KeyLimits) => ({ rpm: l.rpm, monthlySpendCapUsd: usd(l.monthlySpendCapMicros) });
const keyAttributes = (d: GatewayKeyDoc) => ({ name: d.name, prefix: d.prefix, mode: d.mode, limits: limitsOut(d.limits), revoked: d.revoked, revokedAt: d.revokedAt, expiresAt: d.expiresAt ?? null, createdAt: d.createdAt });

const limitsIn = z
  .object({
    rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
    monthlySpendCapUsd: z.number().min(0).max(1_000_000_000).nullable().optional(),
  })
  .strict();
const keyBody = z.object({ name: z.string().trim().min(1).max(100).default('key'), limits: limitsIn.optional(), expiresAt: z.string().datetime({ offset: true }).nullable().optional() }).strict();
const limitsBody = z.object({ limits: limitsIn }).strict();
const toLimits = (l: z.infer<typeof limitsIn> | undefined, base: KeyLimits = { rpm: null, monthlySpendCapMicros: null }): KeyLimits => ({
  rpm: l?.rpm === undefined ? base.rpm : l.rpm,
  monthlySpendCapMicros: l?.monthlySpendCapUsd === undefined ? base.monthlySpendCapMicros : l.monthlySpendCapUsd === null ? null : Math.round(l.monthlySpendCapUsd * 1_000_000),
});

const usageFilter = z.object({ keyId: z.string().max(100).optional(), model: z.string().max(200).optional(), from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(), to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional() });
const USAGE_SPEC = listOf('usage', GATEWAY_USAGE_LIST);
const SPEND_SPEC = listOf('spend', GATEWAY_SPEND_LIST);
const KEYS_SPEC = listOf('keys', GATEWAY_KEYS_LIST);

/** Durations of consecutive phases of one request, from its arrival: the `server-timing` header's `<phase>;dur=<ms>` entries. */
class PhaseClock {
  private readonly entries: string[] = [];
  constructor(private last: number) {}
  mark(phase: string): void {
    const now = performance.now();
    this.entries.push(`${phase};dur=${(now - this.last).toFixed(2)}`);
    this.last = now;
  }
  header(): string {
    return this.entries.join(', ');
  }
}

/** The inference gateway's HTTP surface (spec 4.18, 5.2; DECISIONS 19): a thin transport over usecases/gateway. */
export async function createGateway(o: GatewayOptions): Promise<{ app: FastifyInstance; url: string; close(): Promise<void> }> {
  const { ports } = o;
  const ledger = new BudgetLedger(ports.events);
  const sessions = new SessionCodec(o.hasher, () => ports.clock.now());
  const simulator = new SimulatorUpstream(SIMULATOR_CONNECTION);
  const upstreamTimeoutMs = o.upstreamTimeoutMs ?? 30_000;
  const vendorOf = (req: FastifyRequest): Vendor => (req.url.startsWith('/v1/messages') ? 'anthropic' : 'openai');
  const app = Fastify({
    https: { key: o.tls.key, cert: o.tls.cert },
    logger: false,
    bodyLimit: 4 * 1024 * 1024,
    genReqId: () => `req_${uuidv7().replace(/-/g, '')}`,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Refused before routing (a malformed URL, a path segment over the bound): the vendor envelope too, never Fastify's own body.
    frameworkErrors: (err, req, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const e = tooLong ? new GatewayError(414, 'invalid_request_error', 'uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`) : badRequest('The request URL is malformed');
      void (reply as FastifyReply).code(e.status).headers({ 'x-request-id': req.id, 'request-id': req.id }).send(errorBody(vendorOf(req as FastifyRequest), e));
    },
    // Unparseable HTTP (headers over 16 KiB, not HTTP at all): no request exists yet, so the OpenAI envelope on the raw socket.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return void socket.destroy();
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify(errorBody('openai', new GatewayError(status, 'invalid_request_error', null, status === 431 ? 'The request headers are too large' : 'The request is not valid HTTP')));
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    },
  });
  /** When each request arrived (performance.now()), for `server-timing`. */
  const arrived = new WeakMap<FastifyRequest, number>();
  app.addHook('onRequest', async (req, reply) => {
    if (o.serverTiming) arrived.set(req, performance.now());
    reply.header('x-request-id', req.id).header('request-id', req.id);
  });
  const fail = (req: FastifyRequest, reply: FastifyReply, e: GatewayError) => reply.code(e.status).headers(e.headers).send(errorBody(vendorOf(req), e));
  app.setErrorHandler((err, req, reply) => {
    const e = toGatewayError(err);
    if (e.status >= 500) o.logger.error({ err: err instanceof Error ? err.message : String(err), requestId: req.id }, 'gateway request failed');
    return fail(req, reply, e);
  });
  // Ids, queries and bodies the event store cannot hold (NUL, unpaired surrogates; control characters
  // in names): refused at the edge as the API refuses them (libs/http), never a 500 from the store.
  // Inference bodies are the vendors' free text, passed on and never stored: only the model they name is checked.
  app.addHook('preHandler', async (req) => {
    const refusal = req.url.startsWith('/api/') ? refuseUnstorable(req) : (refuseUnstorableParams(req.params) ?? refuseUnstorableQuery(req.query) ?? refuseUnstorableBody({ model: (req.body as { model?: unknown } | undefined)?.model }));
    if (refusal) throw refusal;
  });
  app.setNotFoundHandler((req, reply) => fail(req, reply, notFound(`Unknown route ${req.method} ${req.url.split('?')[0]}`)));
  registerConsoleCors(app, o.consoleOrigins ?? []);

  // ---------------------------------------------------------------- who asks
  /** An organization key, only from `Authorization: Bearer` (and `x-api-key` on /v1/messages); never a cookie or the query. */
  const keyOf = async (req: FastifyRequest): Promise<GatewayKeyDoc | null> => {
    const auth = req.headers.authorization;
    const bearer = typeof auth === 'string' && /^Bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
    const xKey = vendorOf(req) === 'anthropic' && typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
    const secret = xKey ?? bearer;
    return secret ? authenticateOrgKey(ports, o.hasher, secret) : null;
  };
  const requireKey = async (req: FastifyRequest): Promise<GatewayKeyDoc> => {
    const doc = await keyOf(req);
    if (!doc) throw invalidKey();
    return doc;
  };
  /** The session of the cookie, unless it was revoked (by any gateway process: the revocation is in the log). */
  const sessionOf = async (req: FastifyRequest): Promise<SessionHolder | null> => {
    const s = sessions.decode(sessionCookie(req.headers.cookie));
    return s && s.sessionId && (await sessionRevoked(ports, s.sessionId)) ? null : s;
  };
  /** Session-only routes (mint, revoke, limits): an organization key is refused with 403. */
  const requireSession = async (req: FastifyRequest): Promise<SessionHolder> => {
    const s = await sessionOf(req);
    if (s) return s;
    if (await keyOf(req)) throw forbidden('This route needs a session (POST /api/session); an organization key may not manage keys');
    throw invalidKey();
  };
  const keyOrSession = async (req: FastifyRequest): Promise<KeyAuth | SessionAuth> => {
    const doc = await keyOf(req);
    if (doc) return { kind: 'key', doc };
    const s = await sessionOf(req);
    if (s) return { kind: 'session', session: s };
    throw invalidKey();
  };
  const scopeOf = (a: KeyAuth | SessionAuth) => (a.kind === 'key' ? a.doc.projectId : a.session.scope);
  const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
    // No body at all is an empty object; a JSON `null` (or any other non-object) is refused by the schema.
    const r = schema.safeParse(body === undefined ? {} : body);
    if (!r.success) {
      const issue = r.error.issues[0];
      const param = issue?.path.map(String).join('.') || null;
      throw badRequest(`${param ? `${param}: ` : ''}${issue?.message ?? 'invalid body'}`, param);
    }
    return r.data;
  };

  // ---------------------------------------------------------------- session and keys
  app.post('/api/session', async (req, reply) => {
    const apiKey = req.headers['x-service-api-key'];
    const auth = req.headers.authorization;
    const bearer = typeof auth === 'string' && /^Bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
    const principal = await o.cloudAuth.authenticate({ apiKey: typeof apiKey === 'string' ? apiKey : undefined, bearer }, req);
    if (!principal || (principal.kind !== 'project-key' && principal.kind !== 'project-member') || principal.suspended) throw invalidKey();
    if (principal.role !== 'owner' && principal.role !== 'admin') throw forbidden('Only an owner or admin of the project may open a gateway session');
    const holder: SessionHolder = {
      projectId: principal.projectId,
      scope: dataScope(principal.projectId, principal.mode),
      mode: principal.mode,
      actor: principal.kind === 'project-key' ? `apikey:${principal.keyId}` : `member:${principal.memberId}`,
    };
    return reply.header('set-cookie', sessions.cookie(sessions.encode(holder))).code(201).send({ data: { type: 'sessions', id: req.id, attributes: { projectId: holder.projectId, mode: holder.mode } } });
  });

  app.delete('/api/session', async (req, reply) => {
    const session = await requireSession(req);
    await revokeSession(ports, session, sessionContext(session, req.id));
    return reply.header('set-cookie', sessions.clearCookie()).code(204).send();
  });

  app.post('/api/keys', async (req, reply) => {
    const session = await requireSession(req);
    const body = parse(keyBody, req.body);
    const { key, doc } = await mintKey(ports, o.hasher, session, { name: body.name, limits: toLimits(body.limits), expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null }, sessionContext(session, req.id));
    return reply.code(201).send({ data: { type: 'keys', id: doc.id, attributes: { ...keyAttributes(doc), key } } });
  });
  app.get('/api/keys', async (req) => {
    const auth = await keyOrSession(req);
    const list = parseListQuery(req.query as Record<string, string>, KEYS_SPEC);
    const { items, total } = await (await ports.projections.collection(gatewayKeysProjection)).find({ filter: { projectId: scopeOf(auth) }, ...pageOf(list) });
    return listResponse(req, list, items.map((d) => ({ id: d.id, type: 'keys', attributes: keyAttributes(d) })), total);
  });
  app.patch<{ Params: { id: string } }>('/api/keys/:id', async (req) => {
    const session = await requireSession(req);
    const body = parse(limitsBody, req.body);
    const current = await (await ports.projections.collection(gatewayKeysProjection)).get(req.params.id);
    if (!current || current.projectId !== session.scope || current.revoked) throw notFound('Key not found');
    const doc = await changeKeyLimits(ports, session, req.params.id, toLimits(body.limits, current.limits), sessionContext(session, req.id));
    return { data: { type: 'keys', id: doc.id, attributes: keyAttributes(doc) } };
  });
  app.delete<{ Params: { id: string } }>('/api/keys/:id', async (req, reply) => {
    const session = await requireSession(req);
    await revokeKey(ports, session, req.params.id, sessionContext(session, req.id));
    return reply.code(204).send();
  });

  // ---------------------------------------------------------------- usage and spend
  const usageQuery = (scope: string, list: ListQuery<z.infer<typeof usageFilter>>) => {
    const f = list.filters;
    const filter: Record<string, unknown> = { projectId: scope };
    if (f.keyId) filter.keyId = f.keyId;
    if (f.model) filter.model = f.model;
    if (f.from || f.to) filter.day = { ...(f.from ? { $gte: f.from } : {}), ...(f.to ? { $lte: f.to } : {}) };
    return filter as never;
  };
  app.get('/api/usage', async (req) => {
    const scope = scopeOf(await keyOrSession(req));
    const list = parseListQuery(req.query as Record<string, string>, USAGE_SPEC, usageFilter);
    const { items, total } = await (await ports.projections.collection(gatewayUsageProjection)).find({ filter: usageQuery(scope, list), ...pageOf(list) });
    return listResponse(req, list, items.map(({ id, _position, projectId: _p, costMicros, ...rest }) => ({ id, type: 'usage', attributes: { ...rest, costUsd: usd(costMicros) } })), total);
  });
  app.get('/api/spend', async (req) => {
    const scope = scopeOf(await keyOrSession(req));
    const list = parseListQuery(req.query as Record<string, string>, SPEND_SPEC, usageFilter);
    const { items, total } = await (await ports.projections.collection(gatewaySpendProjection)).find({ filter: usageQuery(scope, list), ...pageOf(list) });
    return listResponse(req, list, items.map(({ id, _position, projectId: _p, costMicros, ...rest }) => ({ id, type: 'spend', attributes: { ...rest, costMicros, costUsd: usd(costMicros) } })), total);
  });

  // ---------------------------------------------------------------- catalog
  const orgOf = (a: KeyAuth | SessionAuth): Organization => (a.kind === 'key' ? { scope: a.doc.projectId, mode: a.doc.mode } : { scope: a.session.scope, mode: a.session.mode });
  registerCatalogRoutes(app, {
    ports,
    probe: { verify: (c, secret) => httpUpstream(c.kind, c.id, c.baseUrl, secret).verify(AbortSignal.timeout(upstreamTimeoutMs)) },
    organization: async (req) => {
      const auth = await keyOrSession(req);
      return { org: orgOf(auth), ctx: auth.kind === 'key' ? keyContext(auth.doc, req.id) : sessionContext(auth.session, req.id) };
    },
    maybeOrganization: async (req) => {
      const doc = await keyOf(req);
      if (doc) return orgOf({ kind: 'key', doc });
      const s = await sessionOf(req);
      return s ? orgOf({ kind: 'session', session: s }) : null;
    },
    parse,
  });
  const openaiModel = (id: string, created: string, ownedBy: string) => ({ id, object: 'model', created: Math.floor(Date.parse(created) / 1000), owned_by: ownedBy });
  app.get('/v1/models', async (req) => {
    const doc = await requireKey(req);
    const custom = await (await ports.projections.collection(gatewayCustomModelsProjection)).find({ filter: { projectId: doc.projectId }, sort: [{ field: 'createdAt', direction: 1 }], limit: 1000, withTotal: false });
    return { object: 'list', data: [...PUBLIC_MODELS.map((m) => openaiModel(m.id, m.createdAt, m.ownedBy)), ...custom.items.map((c) => openaiModel(c.alias, c.createdAt, 'organization'))] };
  });
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (req) => {
    const doc = await requireKey(req);
    const m = publicModel(req.params.id);
    if (m) return openaiModel(m.id, m.createdAt, m.ownedBy);
    const c = await (await ports.projections.collection(gatewayCustomModelsProjection)).findOne({ projectId: doc.projectId, alias: req.params.id });
    if (!c) throw new GatewayError(404, 'invalid_request_error', 'model_not_found', `The model '${req.params.id}' does not exist`, {}, 'model');
    return openaiModel(c.alias, c.createdAt, 'organization');
  });

  // ---------------------------------------------------------------- inference
  const rpmCheck = async (doc: GatewayKeyDoc) => {
    if (doc.limits.rpm === null) return;
    const now = ports.clock.now();
    const windowStart = Math.floor(now / 60_000) * 60_000;
    // Refused calls spend nothing: the limit is the bucket's own (libs/http's one atomic take).
    let admitted: boolean;
    try {
      ({ admitted } = await o.rateLimits.take([{ key: `gw:key:${doc.id}`, limit: doc.limits.rpm }], windowStart, 60_000));
    } catch (err) {
      // A limit that cannot be counted is not waived: as the API (spec 7), 503 while the counters' store is out.
      o.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'gateway: rate-limit store unavailable');
      throw new GatewayError(503, 'server_error', 'rate_limit_store_unavailable', 'The rate limiter is unavailable; retry shortly', { 'retry-after': '1' });
    }
    if (!admitted) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
      throw new GatewayError(429, 'rate_limit_exceeded', 'rate_limit_exceeded', `Rate limit of ${doc.limits.rpm} requests per minute reached for this key`, { 'retry-after': String(retryAfter) });
    }
  };
  const hintsOf = (req: FastifyRequest) => Object.fromEntries(SIMULATOR_HINTS.filter((h) => typeof req.headers[h] === 'string').map((h) => [h, req.headers[h] as string]));

  /**
   * The waterfall's upstreams: each step's connection (its secret from the vault) or the simulator;
   * a step whose connection is gone is skipped. Test-mode keys run on the simulator only (DECISIONS 21).
   */
  const upstreamsOf = async (doc: GatewayKeyDoc, route: ModelRoute) => {
    const out: { upstream: Upstream; model: string }[] = [];
    const connections = await ports.projections.collection(gatewayConnectionsProjection);
    for (const t of route.targets) {
      if (t.connectionId === SIMULATOR_CONNECTION || doc.mode === 'test') {
        out.push({ upstream: simulator, model: t.model });
        continue;
      }
      const c = await connections.get(t.connectionId);
      const secret = c && c.projectId === doc.projectId ? (await ports.vault.get(c.secretRef))?.secret : undefined;
      if (c && secret) out.push({ upstream: httpUpstream(c.kind, c.id, c.baseUrl, secret), model: t.model });
    }
    if (out.length === 0) throw new GatewayError(404, 'invalid_request_error', 'model_not_found', `The model '${route.id}' has no upstream left (its connections were deleted)`, {}, 'model');
    return out;
  };

  type Render = { plain(o: InferenceOutcome): unknown; stream(): wire.StreamRenderer };
  async function infer(req: FastifyRequest, reply: FastifyReply, doc: GatewayKeyDoc, call: ParsedCall, render: (model: string) => Render) {
    const phases = o.serverTiming ? new PhaseClock(arrived.get(req) ?? performance.now()) : null;
    phases?.mark('auth');
    const route = await resolveModel(ports, { scope: doc.projectId, mode: doc.mode }, call.model);
    if (!route) throw new GatewayError(404, 'invalid_request_error', 'model_not_found', `The model '${call.model}' does not exist or you do not have access to it`, {}, 'model');
    phases?.mark('model');
    await rpmCheck(doc);
    phases?.mark('rpm');
    const max = call.maxTokens ?? route.maxOutputTokens;
    if (max > route.maxOutputTokens) throw badRequest(`max_tokens: at most ${route.maxOutputTokens} for ${route.id}`, 'max_tokens');
    const upstreams = await upstreamsOf(doc, route);
    phases?.mark('route');
    const gone = new AbortController();
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    const r = render(route.id);
    const renderer = call.stream ? r.stream() : null;
    let began = false;
    const write = async (chunk: string) => {
      if (gone.signal.aborted || !chunk) return;
      if (!reply.raw.write(chunk)) await new Promise<void>((resolve) => {
        const done = () => { reply.raw.off('drain', done); reply.raw.off('close', done); resolve(); };
        reply.raw.on('drain', done).on('close', done);
      });
    };
    const sink = {
      streaming: call.stream,
      signal: gone.signal,
      start: async () => {
        if (!renderer || began) return;
        began = true;
        reply.hijack();
        phases?.mark('upstream');
        reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': req.id, 'request-id': req.id, 'x-accel-buffering': 'no', ...(phases ? { 'server-timing': phases.header() } : {}) });
        await write(renderer.start(estimateTokens(inputTextOf(call.messages, call.tools))));
      },
      text: async (delta: string) => {
        if (renderer) await write(renderer.text(delta));
      },
      toolCall: async (index: number, id: string, name: string) => {
        if (renderer) await write(renderer.toolCall(index, id, name));
      },
      toolArgs: async (index: number, delta: string) => {
        if (renderer) await write(renderer.toolArgs(index, delta));
      },
    };
    try {
      const outcome = await runInference(
        { ports, ledger, upstreamTimeoutMs, reserved: phases ? () => phases.mark('reserve') : undefined },
        { requestId: req.id, key: { id: doc.id, scope: doc.projectId, mode: doc.mode, limits: doc.limits }, model: { id: route.id, price: route.price }, upstreams, messages: call.messages, tools: call.tools, toolChoice: call.toolChoice, maxTokens: max, hints: hintsOf(req) },
        sink,
      );
      if (!renderer) return reply.send(r.plain(outcome));
      // An answer with no content at all still gets its lifecycle frames.
      await sink.start();
      await write(renderer.end(outcome));
      reply.raw.end();
    } catch (err) {
      if (err instanceof ClientGoneError) {
        if (!began) reply.hijack();
        reply.raw.destroy();
        return;
      }
      if (err instanceof StreamBrokenError && began) {
        await write(renderer!.error(err.message));
        reply.raw.end();
        return;
      }
      throw err;
    }
  }

  const created = () => Math.floor(ports.clock.now() / 1000);
  app.post('/v1/chat/completions', async (req, reply) => {
    const doc = await requireKey(req);
    const body = parse(chatBody, req.body);
    const id = `chatcmpl-${req.id.slice(4)}`;
    const at = created();
    return infer(req, reply, doc, fromChat(body), (model) => ({
      plain: (out) => wire.chatCompletion(id, model, at, out),
      stream: () => wire.chatStream(id, model, at, !!body.stream_options?.include_usage),
    }));
  });
  app.post('/v1/responses', async (req, reply) => {
    const doc = await requireKey(req);
    const body = parse(responsesBody, req.body);
    const id = `resp_${req.id.slice(4)}`;
    const msgId = `msg_${req.id.slice(4)}`;
    const at = created();
    return infer(req, reply, doc, fromResponses(body), (model) => ({
      plain: (out) => wire.response(id, msgId, model, at, out),
      stream: () => wire.responseStream(id, msgId, model, at),
    }));
  });
  app.post('/v1/messages', async (req, reply) => {
    const doc = await requireKey(req);
    // As Anthropic's API: the version header is required (any dated version; the wire shape is one).
    if (typeof req.headers['anthropic-version'] !== 'string') throw badRequest('anthropic-version: header is required', 'anthropic-version');
    const body = parse(messagesBody, req.body);
    const id = `msg_${req.id.slice(4)}`;
    return infer(req, reply, doc, fromMessages(body), (model) => ({
      plain: (out) => wire.message(id, model, out),
      stream: () => wire.messageStream(id, model),
    }));
  });

  const url = await app.listen({ host: o.host, port: o.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  return { app, url: `https://${o.host}:${port}`, close: () => app.close() };
  void url;
}

type ErrorSource = { pointer?: string; parameter?: string };

/** Every failure as the vendors say it: ours as they are, the use cases' codes, upstream failures, the rest 500. */
function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof DomainError || err instanceof AppError) {
    switch (err.code) {
      case 'INSUFFICIENT_FUNDS':
        // A cap is not lifted by waiting a few seconds: the SDKs must not retry it.
        return new GatewayError(429, 'insufficient_quota', 'insufficient_quota', err.message, { 'x-should-retry': 'false' });
      case 'NOT_FOUND':
        return notFound(err.message);
      case 'BAD_REQUEST':
      case 'INVALID_QUERY':
        return badRequest(err.message);
      case 'CONFLICT':
        return new GatewayError(409, 'invalid_request_error', 'conflict', err.message);
      default:
        return new GatewayError(500, 'server_error', null, 'Internal error');
    }
  }
  // The list helpers of libs/http refuse bad queries with their own error (status + code).
  // The HTTP edge's helpers of libs/http (list queries, hostile input) refuse with their own error (status, code, items).
  const edge = err as { name?: string; status?: unknown; code?: unknown; detail?: string; message?: string; source?: ErrorSource; items?: { detail?: string; source?: ErrorSource }[] };
  if (edge.name === 'ApiError' && typeof edge.status === 'number' && edge.status < 500) {
    const first = edge.items?.[0] ?? { detail: edge.detail ?? edge.message, source: edge.source };
    const param = first.source?.parameter ?? (first.source?.pointer ? first.source.pointer.replace(/^\//, '').replace(/\//g, '.') : null);
    return new GatewayError(edge.status, 'invalid_request_error', String(edge.code).toLowerCase(), first.detail ?? 'Bad request', {}, param || null);
  }
  if (err instanceof UpstreamError) {
    if (err.kind === 'timeout') return new GatewayError(504, 'server_error', 'upstream_timeout', 'Every upstream of this model timed out');
    if (err.status === 429) return new GatewayError(429, 'rate_limit_exceeded', 'upstream_rate_limited', 'Every upstream of this model is rate limited', { 'retry-after': '1' });
    return new GatewayError(502, 'server_error', 'upstream_error', `Every upstream of this model failed (${err.status})`);
  }
  const fastifyErr = err as { statusCode?: number; message?: string };
  if (typeof fastifyErr.statusCode === 'number' && fastifyErr.statusCode >= 400 && fastifyErr.statusCode < 500) return new GatewayError(fastifyErr.statusCode, 'invalid_request_error', null, fastifyErr.message ?? 'Bad request');
  return new GatewayError(500, 'server_error', null, 'Internal error');
}
