/** JSON body parser: application/json and application/vnd.api+json, depth ≤ 32, no __proto__. */
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors';

export const BODY_LIMIT = 1024 * 1024;
export const MAX_JSON_DEPTH = 32;
export const JSON_MEDIA_TYPES = ['application/json', 'application/vnd.api+json'];

/** Nesting depth of containers: `{}` is 1, `{"a":[]}` is 2. Iterative (no recursion). */
export function jsonDepth(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [node, d] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (d > max) max = d;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return max;
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text, (k, v) => {
      if (k === '__proto__') throw new SyntaxError('forbidden key');
      return v;
    });
  } catch {
    throw badRequest([{ detail: 'Malformed JSON body', source: { pointer: '' } }]);
  }
  if (jsonDepth(value) > MAX_JSON_DEPTH) throw badRequest([{ detail: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, source: { pointer: '' } }]);
  return value;
}

export function registerJsonBodyParser(fastify: FastifyInstance, bodyLimit = BODY_LIMIT): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_MEDIA_TYPES, { parseAs: 'string', bodyLimit }, (req, body, done) => {
    try {
      // Kept for the routes that verify a signature over the body as sent (inbound webhooks).
      (req as { rawBody?: string }).rawBody = body as string;
      done(null, parseJsonBody(body as string));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

/** The request body exactly as received (before JSON parsing), for signature checks. */
export const rawBodyOf = (req: unknown): string | undefined => (req as { rawBody?: string }).rawBody;
