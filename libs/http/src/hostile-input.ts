/**
 * Strings the event store cannot hold: PostgreSQL refuses NUL in text and jsonb, and an unpaired
 * UTF-16 surrogate in a JSON string. Refused once, at the edge, for every route (DECISIONS 1: client
 * input never causes a 500), before any schema or handler sees them.
 */
import { ApiError, ApiErrorItem, badRequest, invalidQuery } from './errors';
import { fieldLabel, jsonPointer } from './validation';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isUnstorable = (s: string): boolean => UNSTORABLE.test(s);

const REASON = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * Path (keys and indexes) of the first string, value or object key, that the store cannot hold;
 * undefined when there is none. Iterative; parsed JSON is already bounded in depth (json-body.ts).
 */
export function findUnstorable(value: unknown): { path: PropertyKey[]; inKey: boolean } | undefined {
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (isUnstorable(node)) return { path, inKey: false };
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], [...path, i]]);
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node);
      for (const k of keys) if (isUnstorable(k)) return { path: [...path, k], inKey: true };
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(node as Record<string, unknown>)[keys[i]], [...path, keys[i]]]);
    }
  }
  return undefined;
}

/** 404 for a path id (no resource can have it), else undefined. */
export function refuseUnstorableParams(params: unknown): ApiError | undefined {
  const hit = findUnstorable(params);
  if (!hit) return undefined;
  return new ApiError('NOT_FOUND', 'Resource not found', { source: { parameter: String(hit.path[0] ?? '') } });
}

/** 400 INVALID_QUERY naming the parameter. */
export function refuseUnstorableQuery(query: unknown): ApiError | undefined {
  const hit = findUnstorable(query);
  if (!hit) return undefined;
  const parameter = String(hit.path[0] ?? '');
  const item: ApiErrorItem = { detail: hit.inKey && hit.path.length === 1 ? `Query parameter names ${REASON}` : `${parameter} ${REASON}`, source: { parameter } };
  return invalidQuery([item]);
}

/** 400 BAD_REQUEST with the pointer of the field (or of the key itself). */
export function refuseUnstorableBody(body: unknown): ApiError | undefined {
  const hit = findUnstorable(body);
  if (!hit) return undefined;
  const pointer = jsonPointer('', hit.path);
  const detail = hit.inKey ? `Field names ${REASON}` : `${hit.path.length ? fieldLabel(hit.path) : 'The request body'} ${REASON}`;
  return badRequest([{ detail, source: { pointer } }]);
}

/** The first refusal for a request's params, query and body, in that order. */
export function refuseUnstorable(req: { params?: unknown; query?: unknown; body?: unknown }): ApiError | undefined {
  return refuseUnstorableParams(req.params) ?? refuseUnstorableQuery(req.query) ?? refuseUnstorableBody(req.body);
}
