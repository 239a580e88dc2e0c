/** Accepts a flat body or the JSON:API shape `{data:{type, attributes:{...}}}`. */
import { badRequest } from './errors';

export interface UnwrappedBody { value: unknown; pointerPrefix: string }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isJsonApiDocument(body: unknown): body is { data: Record<string, unknown> } {
  if (!isObj(body) || !isObj(body.data)) return false;
  const keys = Object.keys(body).filter((k) => k !== 'meta' && k !== 'jsonapi');
  return keys.length === 1 && ('attributes' in body.data || 'type' in body.data);
}

/** Returns the attributes to validate and the pointer prefix of their fields. */
export function unwrapBody(body: unknown, expectedType?: string): UnwrappedBody {
  if (!isJsonApiDocument(body)) return { value: body, pointerPrefix: '' };
  const { type, attributes } = body.data;
  if (type !== undefined && (typeof type !== 'string' || (expectedType && type !== expectedType))) {
    throw badRequest([{ detail: expectedType ? `data.type must be '${expectedType}'` : 'data.type must be a string', source: { pointer: '/data/type' } }]);
  }
  if (!isObj(attributes)) throw badRequest([{ detail: 'data.attributes must be an object', source: { pointer: '/data/attributes' } }]);
  return { value: attributes, pointerPrefix: '/data/attributes' };
}

const emptyAccepted = new WeakMap<object, boolean>();

/**
 * The body schema takes `{}`: no field is required (an action whose body the spec does not show, DECISIONS 14).
 * Such a route also takes no body at all, and the OpenAPI document marks its body optional.
 */
export function acceptsEmptyBody(schema: { safeParse(v: unknown): { success: boolean } }): boolean {
  let known = emptyAccepted.get(schema);
  if (known === undefined) emptyAccepted.set(schema, (known = schema.safeParse({}).success));
  return known;
}
