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

/** How much of a refused body is read and discarded behind its 413 before the connection is cut. */
export const OVERSIZE_DRAIN_FACTOR = 16;

/**
 * A 413 answered before the whole body arrived (Fastify refuses an over-limit Content-Length before
 * reading, or stops at the limit) comes with `Connection: close`, and closing a socket the client is
 * still writing to resets it: a client that writes its body before reading (most do) gets a broken
 * pipe instead of the 413. Instead the 413 keeps the connection, and Node reads and discards the rest
 * of the body behind it (a lingering close); a body still coming after `OVERSIZE_DRAIN_FACTOR` times
 * the limit has its connection cut.
 */
function drainRefusedBodies(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.addHook('onSend', async (req, reply, payload) => {
    const raw = req.raw;
    if (reply.statusCode !== 413 || raw.complete || raw.destroyed) return payload;
    reply.removeHeader('connection');
    let drained = 0;
    const cap = OVERSIZE_DRAIN_FACTOR * bodyLimit;
    const count = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > cap) raw.socket?.destroy();
    };
    raw.on('data', count);
    raw.once('end', () => raw.off('data', count));
    raw.resume();
    return payload;
  });
}

export function registerJsonBodyParser(fastify: FastifyInstance, bodyLimit = BODY_LIMIT): void {
  drainRefusedBodies(fastify, bodyLimit);
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
