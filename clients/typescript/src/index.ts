import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api';
import { streamEvents, type EventStreamOptions, type StreamedEvent } from './event-stream';
import { retryingFetch, sleep, type RetryOptions } from './retry';

export type { components, operations, paths };
export { EventStreamError, type CloudEvent, type EventStreamOptions, type StreamedEvent } from './event-stream';
export { retryAfterMs, retryingFetch, specBackoffMs, type RetryOptions } from './retry';

export interface CloudClientOptions {
  /** `https://api.example.com` (no `/v1`). */
  baseUrl: string;
  /** A project API key (`svc_live_…` / `svc_test_…`), sent as `X-Service-API-Key`. */
  apiKey?: string;
  /** An identity-provider JWT, sent as `Authorization: Bearer`. */
  token?: string;
  /** Retries on 429 and 5xx (the spec's backoff); `false` for none. */
  retries?: RetryOptions | false;
  /** `Idempotency-Key` for every POST that has none: a random UUID by default; `false` for none. */
  idempotencyKey?: (() => string) | false;
  /** Another fetch (a proxy agent, a test's); default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/** An error answer of the API: its status and JSON:API error objects. */
export class CloudApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: Array<{ code: string; detail: string; status?: string; source?: Record<string, string> }>,
    readonly requestId?: string,
  ) {
    super(`${status} ${errors.map((e) => `${e.code}: ${e.detail}`).join('; ') || 'error'}${requestId ? ` (request ${requestId})` : ''}`);
  }
}

/** A job that ended `failed` (`waitForJob`). */
export class JobFailedError extends Error {
  constructor(readonly job: JobDocument) {
    super(`job ${job.id} failed: ${JSON.stringify(job.attributes.error ?? null)}`);
  }
}

type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
type Ok<O> = O extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathOf<O> = O extends { parameters: { path?: infer Q } } ? Q : never;
/** The list routes: a GET answering `{data: [...], links}` with a `page` parameter. */
export type ListPath = { [P in keyof paths]: Ok<Get<P>> extends { data: unknown[]; links: unknown } ? ('page' extends keyof QueryOf<Get<P>> ? P : never) : never }[keyof paths];
/** One item of a list route's pages. */
export type ListItem<P extends ListPath> = Ok<Get<P>> extends { data: Array<infer I> } ? I : never;
export type ListOptions<P extends ListPath> = { query?: Omit<QueryOf<Get<P>>, 'page'> } & (PathOf<Get<P>> extends never | undefined ? { path?: never } : { path: PathOf<Get<P>> });
export type JobDocument = Ok<Get<'/v1/jobs/{id}'>>['data'];

export interface CloudClient extends Client<paths> {
  /** Every item of a list route, page after page (`limit` per page, 100 by default). */
  paginate<P extends ListPath>(path: P, options?: ListOptions<P>): AsyncGenerator<ListItem<P>>;
  /** Polls a job until it is `completed` (answers it) or `failed` (throws JobFailedError). */
  waitForJob(jobId: string, options?: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal }): Promise<JobDocument>;
  events: {
    /** The project's events live, resuming by itself after a dropped connection (no loss, no repeat). */
    stream(options?: EventStreamOptions): AsyncGenerator<StreamedEvent>;
  };
}

/** A client of the cloud provisioning API: the typed `GET`/`POST`/… of openapi-fetch, and the helpers above. */
export function createCloudClient(o: CloudClientOptions): CloudClient {
  const base = o.fetch ?? globalThis.fetch;
  const headers = (): Record<string, string> => ({
    ...(o.apiKey ? { 'X-Service-API-Key': o.apiKey } : {}),
    ...(o.token ? { Authorization: `Bearer ${o.token}` } : {}),
  });
  const fetcher = retryingFetch(base, { ...(o.retries === false ? { maxRetries: 0 } : o.retries), idempotencyKey: o.idempotencyKey });
  const raw = createClient<paths>({ baseUrl: o.baseUrl.replace(/\/+$/, ''), headers: headers(), fetch: (request: Request) => fetcher(request) });
  // openapi-fetch's methods are typed per path; the helpers call them with paths chosen at run time.
  const get = raw.GET as unknown as (path: string, init: { params: { path?: unknown; query?: Record<string, unknown> }; signal?: AbortSignal }) => Promise<{ data?: any; error?: any; response: Response }>;
  const fail = (error: any, response: Response): never => {
    throw new CloudApiError(response.status, Array.isArray(error?.errors) ? error.errors : [], response.headers.get('x-request-id') ?? undefined);
  };

  async function* paginate<P extends ListPath>(path: P, options?: ListOptions<P>): AsyncGenerator<ListItem<P>> {
    const query = { limit: 100, ...(options?.query as Record<string, unknown> | undefined) };
    for (let page = 1; ; page++) {
      const { data, error, response } = await get(path, { params: { path: options?.path, query: { ...query, page } } });
      if (error !== undefined || !data) fail(error, response);
      yield* data.data as ListItem<P>[];
      if (!data.links?.next || data.data.length === 0) return;
    }
  }

  async function waitForJob(jobId: string, w: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<JobDocument> {
    const until = Date.now() + (w.timeoutMs ?? 10 * 60_000);
    for (;;) {
      const { data, error, response } = await get('/v1/jobs/{id}', { params: { path: { id: jobId } }, signal: w.signal });
      if (error !== undefined || !data) fail(error, response);
      const job = data.data as JobDocument;
      if (job.attributes.status === 'completed') return job;
      if (job.attributes.status === 'failed') throw new JobFailedError(job);
      if (Date.now() > until) throw new Error(`job ${jobId} still ${job.attributes.status} after ${w.timeoutMs ?? 600_000} ms`);
      await sleep(w.intervalMs ?? 1000, w.signal);
    }
  }

  return Object.assign(raw, {
    paginate,
    waitForJob,
    events: { stream: (options?: EventStreamOptions) => streamEvents({ baseUrl: o.baseUrl, headers, fetch: base }, options) },
  });
}
