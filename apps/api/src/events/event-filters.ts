import { z } from 'zod';

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

export { typeFilterOf, typeMatches, type TypeFilter } from '../../../../usecases/events/type-filters';
