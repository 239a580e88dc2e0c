import { z } from 'zod';
import { contextOf } from '../../../../libs/messaging/src/cloudevents';

/** An ISO 8601 instant in any offset, compared in UTC. */
export const isoInstant = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

const TYPE_OR_PREFIX = /^[a-z][a-z0-9]*(\.[A-Za-z0-9]*)*$/;
export const typeFilter = z
  .string()
  .max(128)
  .regex(TYPE_OR_PREFIX, 'must be an event type or a prefix of one (e.g. compute, compute.Instance, compute.InstanceRequested.v1)')
  .describe('An event type, or a prefix of one: `compute` (a context), `compute.Instance`');
export const subjectFilter = z.string().min(1).max(200).describe('The stream, e.g. `instance-<id>`');
/** A position in the log (the streams' `after`, `Last-Event-ID`). */
export const position = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const typeList = z
  .string()
  .max(1000)
  .transform((v) => v.split(',').map((t) => t.trim()).filter(Boolean))
  .pipe(z.array(typeFilter).min(1).max(20))
  .describe('Comma-separated event types or prefixes (`compute,billing.Invoice`)');

const FULL_TYPE = /^[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*\.v[1-9][0-9]*$/;
const CONTEXT = /^([a-z][a-z0-9]*)\.?$/;

/**
 * What a `type` filter is: a whole type, a bare context (`compute`, `compute.`), or any other prefix
 * of a type. The list turns it into an index equality where it can; the streams match with it.
 */
export type TypeFilter = { type: string } | { context: string } | { prefix: string };

export function typeFilterOf(value: string): TypeFilter {
  if (FULL_TYPE.test(value)) return { type: value };
  const context = CONTEXT.exec(value);
  return context ? { context: context[1]! } : { prefix: value };
}

export function typeMatches(f: TypeFilter, type: string): boolean {
  return 'type' in f ? type === f.type : 'context' in f ? contextOf(type) === f.context : type.startsWith(f.prefix);
}
