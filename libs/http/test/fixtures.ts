/** Test app: sample routes + a fake Authenticator + an HTTPS client that accepts the self-signed cert. */
import { Controller, Module } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { inMemoryList, listOf } from '../src/list-query';
import { invalidState, notFound } from '../../application/src/errors';
import { simpleResourceDecider } from '../../domain/shared/simple-resource';
import { sshKeys } from '../../domain/ssh-keys';
import {
  ApiRoute, Authenticator, Credential, CurrentPrincipal, HttpAppOptions, IdempotencyStore, ListParams, ListQuery, ParsedBody, ParsedParams,
  Principal, RateLimiter, MemoryRateLimitStore, MemoryIdempotencyStore, collectionSchema, createHttpApp, createLogger, listResult,
  principalProjectId, resource, resourceSchema, HttpApp,
} from '../src';

export const KEYS: Record<string, Principal> = {
  svc_test_owner: { kind: 'project-key', projectId: 'p1', keyId: 'k-owner', role: 'owner', mode: 'test' },
  svc_test_admin: { kind: 'project-key', projectId: 'p1', keyId: 'k-admin', role: 'admin', mode: 'test' },
  svc_test_dev: { kind: 'project-key', projectId: 'p1', keyId: 'k-dev', role: 'developer', mode: 'test' },
  svc_test_viewer: { kind: 'project-key', projectId: 'p1', keyId: 'k-viewer', role: 'viewer', mode: 'test' },
  svc_test_other: { kind: 'project-key', projectId: 'p2', keyId: 'k-other', role: 'owner', mode: 'test' },
  svc_test_owner2: { kind: 'project-key', projectId: 'p1', keyId: 'k-owner2', role: 'owner', mode: 'test' },
  platform_admin_key: { kind: 'platform-admin', keyId: 'k-platform' },
};
export const BEARERS: Record<string, Principal> = { 'jwt-owner': KEYS.svc_test_owner };

export class FakeAuthenticator implements Authenticator {
  async authenticate(c: Credential): Promise<Principal | null> {
    if (c.apiKey) return KEYS[c.apiKey] ?? null;
    if (c.bearer) return BEARERS[c.bearer] ?? null;
    return null;
  }
}

const WidgetBody = z.strictObject({ name: z.string().min(1).max(64), size: z.number().int().min(1).optional(), color: z.enum(['red', 'blue']).optional() });
const WidgetAttrs = z.object({ name: z.string(), size: z.number(), color: z.string().optional(), createdAt: z.string() });
export const calls = { createWidget: 0 };

/**
 * Holds a `slow` widget create inside its handler until the test releases it, so a test can act
 * while a request is known to be in flight. `entered` resolves once the handler is running.
 */
export class SlowGate {
  private enter!: () => void;
  private open!: () => void;
  readonly entered = new Promise<void>((resolve) => (this.enter = resolve));
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  async pass(): Promise<void> {
    this.enter();
    await this.opened;
  }
  release(): void {
    this.open();
  }
}
export const slowGates: SlowGate[] = [];

@Controller()
export class SampleController {
  @ApiRoute({
    method: 'POST', path: '/v1/widgets', summary: 'Create a widget', tag: 'Widgets', auth: 'project', permission: 'widgets:write',
    type: 'widgets', body: WidgetBody, responses: { 201: resourceSchema('widgets', WidgetAttrs, { jobId: z.string() }) }, idempotent: true,
  })
  async create(@ParsedBody() body: z.infer<typeof WidgetBody>, @CurrentPrincipal() p: Principal) {
    calls.createWidget += 1;
    if (body.name === 'slow') await slowGates.shift()?.pass();
    if (body.name === 'boom') throw new Error('kaboom: secret internals');
    if (body.name === 'taken') throw { code: 'CONFLICT', message: 'Name already taken' };
    if (body.name === 'locked') throw invalidState('Widget is locked (status locked)');
    // A handler parsing what it derived, with no error map (as createFields does for networking creates).
    if (body.name === 'derived') z.strictObject({ name: z.string(), size: z.number().int().min(5), region: z.string() }).parse({ name: body.name, size: body.size ?? 1, zone: 'x' });
    // A decider re-checking its schema as the invariant (simple resources, job resources).
    if (body.name === 'invariant') simpleResourceDecider(sshKeys).decide({ type: 'CreateResource', id: 'k', projectId: 'p1', now: '2026-01-01T00:00:00.000Z', fields: { providerId: '', name: body.name, bits: 1.5 } as never }, { status: 'none' });
    const id = `w_${calls.createWidget}`;
    return resource('widgets', id, { name: body.name, size: body.size ?? 1, createdAt: '2026-01-01T00:00:00.000Z', owner: principalProjectId(p) ?? '' }, { jobId: `job_${id}` });
  }

  @ApiRoute({
    method: 'GET', path: '/v1/widgets', summary: 'List widgets', tag: 'Widgets', auth: 'project', permission: 'widgets:read',
    query: z.object({ color: z.enum(['red', 'blue']).optional() }),
    list: listOf('widgets', { query: 'GET /v1/widgets', equal: ['projectId'], residual: ['color'], sortable: ['createdAt', 'name', 'size'] }),
    responses: { 200: collectionSchema('widgets', WidgetAttrs) },
  })
  list(@ListParams() q: ListQuery<{ color?: string }>) {
    const total = 45;
    const items = Array.from({ length: Math.max(0, Math.min(q.limit, total - q.skip)) }, (_, i) => {
      const n = q.skip + i + 1;
      return { id: `w_${n}`, type: 'widgets', attributes: { name: `w${n}`, size: n, color: q.filters.color ?? 'red', createdAt: '2026-01-01T00:00:00.000Z', sort: q.sort } };
    });
    return listResult(items, total);
  }

  @ApiRoute({
    method: 'GET', path: '/v1/empty-things', summary: 'Empty list', tag: 'Widgets', auth: 'project', permission: 'widgets:read',
    list: inMemoryList('things', ['createdAt'], 'always empty'), responses: { 200: collectionSchema('things', z.object({})) },
  })
  empty() {
    return listResult([], 0);
  }

  @ApiRoute({
    method: 'GET', path: '/v1/widgets/{id}', summary: 'Get a widget', tag: 'Widgets', auth: 'project', permission: 'widgets:read',
    params: z.object({ id: z.string().regex(/^w_\d+$/) }), responses: { 200: resourceSchema('widgets', WidgetAttrs) },
  })
  get(@ParsedParams() params: { id: string }) {
    if (params.id === 'w_404') throw notFound();
    return resource('widgets', params.id, { name: 'one', size: 3, color: 'red', createdAt: '2026-01-01T00:00:00.000Z' });
  }

  @ApiRoute({ method: 'DELETE', path: '/v1/widgets/{id}', summary: 'Delete a widget', tag: 'Widgets', auth: 'project', permission: 'widgets:write', responses: { 204: null } })
  remove() {
    return undefined;
  }

  @ApiRoute({
    method: 'POST', path: '/v1/api-keys', summary: 'Create an API key', tag: 'Identity', auth: 'project', permission: 'api-keys:write',
    type: 'api-keys', body: z.object({ name: z.string().min(1).max(64) }), responses: { 201: resourceSchema('api-keys', z.object({ name: z.string() })) }, idempotent: true,
  })
  createKey(@ParsedBody() body: { name: string }) {
    return resource('api-keys', 'key_1', { name: body.name });
  }

  @ApiRoute({ method: 'GET', path: '/v1/admin/stats', summary: 'Platform stats', tag: 'Admin', auth: 'admin', responses: { 200: z.object({ data: z.object({ ok: z.boolean() }) }) } })
  adminStats() {
    return { data: { ok: true } };
  }

  @ApiRoute({ method: 'GET', path: '/v1/public/ping', summary: 'Public ping', tag: 'Health', auth: 'none', responses: { 200: z.object({ pong: z.boolean() }) } })
  ping() {
    return { pong: true };
  }

  @ApiRoute({ method: 'GET', path: '/v1/boom', summary: 'Always fails', tag: 'Health', auth: 'none', responses: { 200: z.object({}) } })
  boom(): never {
    throw new Error('internal detail: db password=hunter2 at /srv/app.ts:12');
  }
}

@Module({ controllers: [SampleController] })
export class SampleModule {}

/** Collects log lines so tests can look at them. */
export class LogSink extends Writable {
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
}

export interface StartOptions extends Partial<HttpAppOptions> { sink?: LogSink }

export async function startApp(o: StartOptions = {}): Promise<{ http: HttpApp; url: string; httpUrl?: string; sink: LogSink; dataDir: string }> {
  const sink = o.sink ?? new LogSink();
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'http-lib-'));
  const http = await createHttpApp(SampleModule, {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    trustProxy: false,
    logger: createLogger({ level: 'info', destination: sink }),
    rateLimiter: new RateLimiter(new MemoryRateLimitStore(), { perIp: 10_000, perKey: 10_000, perProject: 10_000 }),
    idempotencyStore: new MemoryIdempotencyStore() as IdempotencyStore,
    authenticator: new FakeAuthenticator(),
    ...o,
  });
  const { url, httpUrl } = await http.listen();
  return { http, url, httpUrl, sink, dataDir };
}

export interface Res { status: number; headers: IncomingHttpHeaders; text: string; json: any }

export function call(url: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown; raw?: string | Buffer } = {}): Promise<Res> {
  const u = new URL(url);
  const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
  let payload: Buffer | undefined;
  if (opts.raw !== undefined) payload = Buffer.from(opts.raw);
  else if (opts.body !== undefined) {
    payload = Buffer.from(JSON.stringify(opts.body));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  if (payload) headers['content-length'] = payload.length;
  const requester = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = requester(u, { method: opts.method ?? 'GET', headers, rejectUnauthorized: false } as object, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

export const owner = { 'X-Service-API-Key': 'svc_test_owner' };
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:56379';
