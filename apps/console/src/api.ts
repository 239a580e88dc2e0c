/**
 * The console's only way to the server: the public HTTP API, authenticated with the credential the
 * person signed in with: a project API key, or the identity provider's JWT where the server accepts
 * them. It lives in this tab's sessionStorage only (never a URL or a cookie), so closing the tab or
 * signing out forgets it.
 */
const STORE = { apiKey: 'console.apiKey', jwt: 'console.jwt' } as const;
export type Credential = { kind: keyof typeof STORE; value: string };

export const session: {
  credential(): Credential | null;
  signIn(c: Credential): void;
  signOut(): void;
  headers(c?: Credential | null): Record<string, string>;
} = {
  credential() {
    for (const kind of ['apiKey', 'jwt'] as const) {
      const value = sessionStorage.getItem(STORE[kind]);
      if (value) return { kind, value };
    }
    return null;
  },
  signIn: (c: Credential) => {
    session.signOut();
    sessionStorage.setItem(STORE[c.kind], c.value);
  },
  signOut: () => {
    sessionStorage.removeItem(STORE.apiKey);
    sessionStorage.removeItem(STORE.jwt);
  },
  /** The header that carries the credential: the API key's own, or a bearer token. */
  headers(c = session.credential()): Record<string, string> {
    if (!c) return {};
    return c.kind === 'jwt' ? { authorization: `Bearer ${c.value}` } : { 'x-service-api-key': c.value };
  },
};

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content || undefined;
/** What the server that serves the console says about itself (meta tags of the page). */
export const settings = { gatewayUrl: meta('console:gateway'), jwt: meta('console:jwt') === 'on' };

/** One error object of the API's JSON:API error document. */
export interface ApiErrorObject {
  status?: string;
  code?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly errors: ApiErrorObject[]) {
    super(errors.map((e) => e.detail ?? e.code ?? `HTTP ${status}`).join('; ') || `HTTP ${status}`);
  }
  /** The errors for a form field, by the last segment of the pointer (`/name`, `/data/attributes/name`) or parameter. */
  forField(field: string): ApiErrorObject[] {
    return this.errors.filter((e) => fieldOf(e) === field);
  }
}

export function fieldOf(e: ApiErrorObject): string | undefined {
  const p = e.source?.pointer ?? (e.source?.parameter ? `/${e.source.parameter}` : undefined);
  if (!p) return undefined;
  const parts = p.split('/').filter(Boolean);
  return parts[0] === 'data' && parts[1] === 'attributes' ? parts[2] : parts[0];
}

export interface Resource<A = Record<string, unknown>> {
  id: string;
  type: string;
  attributes: A;
}
export interface ListMeta {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  [k: string]: unknown;
}
export interface List<A = Record<string, unknown>> {
  data: Resource<A>[];
  meta: ListMeta;
}

export async function request<T>(method: string, path: string, body?: unknown, credential = session.credential()): Promise<T> {
  return call<T>(path, { method, headers: session.headers(credential) }, body, errorsOfApi);
}

type ErrorReader = (status: number, json: unknown) => ApiErrorObject[] | undefined;
const errorsOfApi: ErrorReader = (_s, json) => (json as { errors?: ApiErrorObject[] } | undefined)?.errors;
/** The gateway answers errors in the vendors' shape `{error:{message,param}}` (its param a dotted path, kept whole). */
const errorsOfGateway: ErrorReader = (status, json) => {
  const e = (json as { error?: { message?: string; code?: string | null; param?: string | null } } | undefined)?.error;
  return e ? [{ status: String(status), code: e.code ?? undefined, detail: e.message, source: e.param ? { parameter: e.param } : undefined }] : undefined;
};

async function call<T>(url: string, init: Omit<RequestInit, 'headers'> & { headers: Record<string, string> }, body: unknown, errorsOf: ErrorReader): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch {
    throw new ApiError(0, [{ detail: `The ${errorsOf === errorsOfApi ? 'API' : 'gateway'} could not be reached` }]);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const errors = errorsOf(res.status, json);
    throw new ApiError(res.status, Array.isArray(errors) && errors.length ? errors : [{ detail: `The server answered ${res.status}` }]);
  }
  return json as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  delete: (path: string) => request<void>('DELETE', path),
};

/**
 * The inference gateway's management API (another origin): credentialed CORS calls, so the browser
 * sends the gateway's HttpOnly session cookie, which this script never sees. Only POST /api/session
 * carries the console's own credential, to open that session.
 */
export function gateway<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  if (!settings.gatewayUrl) return Promise.reject(new ApiError(0, [{ detail: 'No inference gateway is configured for this console' }]));
  return call<T>(`${settings.gatewayUrl}${path}`, { method, headers, credentials: 'include', mode: 'cors' }, body, errorsOfGateway);
}

/** A query string from the entries that have a value. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
