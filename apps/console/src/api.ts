/**
 * The console's only way to the server: the public HTTP API, authenticated with the project API key
 * the person signed in with. The key lives in this tab's sessionStorage only (never a URL or a
 * cookie), so closing the tab or signing out forgets it.
 */
const KEY = 'console.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
};

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

export async function request<T>(method: string, path: string, body?: unknown, key = session.key()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['x-service-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch {
    throw new ApiError(0, [{ detail: 'The API could not be reached' }]);
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
    const errors = (json as { errors?: ApiErrorObject[] } | undefined)?.errors;
    throw new ApiError(res.status, Array.isArray(errors) && errors.length ? errors : [{ detail: `The API answered ${res.status}` }]);
  }
  return json as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  delete: (path: string) => request<void>('DELETE', path),
};

/** A query string from the entries that have a value. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
