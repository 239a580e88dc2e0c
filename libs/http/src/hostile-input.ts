/**
 * Strings the event store cannot hold: PostgreSQL refuses NUL in text and jsonb, and an unpaired
 * UTF-16 surrogate in a JSON string. Refused once, at the edge, for every route (DECISIONS 1: client
 * input never causes a 500), before any schema or handler sees them. So are control characters in
 * name-like body fields (see NAME_LIKE).
 */
import { ApiError, ApiErrorItem, badRequest, invalidQuery } from './errors';
import { fieldLabel, jsonPointer } from './validation';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isUnstorable = (s: string): boolean => UNSTORABLE.test(s);

const REASON = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * A name-like field (`name`, `displayName`, `hostname`, `title`, `subject`, `label`, …): one line of
 * text shown in lists, logs and terminals, where ESC, CR, LF or another control character would
 * forge or garble what a reader sees. Free text (descriptions, messages) keeps its newlines.
 */
const NAME_LIKE = /^(?:[a-z]+(?:Name|Title|Label))$|^(?:name|hostname|title|subject|label)$/;
const CONTROL = /[\u0001-\u001f\u007f-\u009f]/;
const NAME_REASON = 'must not contain control characters (ESC, CR, LF, TAB, …)';

/**
 * Path (keys and indexes) of the first string, value or object key, that the store cannot hold, or
 * (`names`) the first name-like field holding a control character; undefined when there is none.
 * Iterative; parsed JSON is already bounded in depth (json-body.ts).
 */
export function findUnstorable(value: unknown, names = false): { path: PropertyKey[]; inKey: boolean; control?: true } | undefined {
  const stack: [unknown, PropertyKey[]][] = [[value, []]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (isUnstorable(node)) return { path, inKey: false };
      const key = path[path.length - 1];
      if (names && typeof key === 'string' && NAME_LIKE.test(key) && CONTROL.test(node)) return { path, inKey: false, control: true };
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
  const hit = findUnstorable(body, true);
  if (!hit) return undefined;
  const pointer = jsonPointer('', hit.path);
  const detail = hit.inKey ? `Field names ${REASON}` : `${hit.path.length ? fieldLabel(hit.path) : 'The request body'} ${hit.control ? NAME_REASON : REASON}`;
  return badRequest([{ detail, source: { pointer } }]);
}

/** The first refusal for a request's params, query and body, in that order. */
export function refuseUnstorable(req: { params?: unknown; query?: unknown; body?: unknown }): ApiError | undefined {
  return refuseUnstorableParams(req.params) ?? refuseUnstorableQuery(req.query) ?? refuseUnstorableBody(req.body);
}
