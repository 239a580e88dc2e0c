/** JSON:API envelopes: single resource, collection, sparse fieldsets, error document. */
import { z } from 'zod';
import type { ErrorObject } from './errors';

import type { Resource, SparseFields } from '../../application/src/views';

export { toResource, type Resource, type SparseFields } from '../../application/src/views';
export interface ResourceDocument<A extends object = Record<string, unknown>> { data: Resource<A>; [member: string]: unknown }
export interface ListMeta { page: number; limit: number; total: number; totalPages: number }
export interface ListLinks { first: string; last: string; prev?: string; next?: string }
export interface CollectionDocument<A extends object = Record<string, unknown>> { data: Resource<A>[]; meta: ListMeta; links: ListLinks }
export interface ErrorDocument { errors: ErrorObject[]; meta?: Record<string, unknown> }


/** `{ data: {id, type, attributes}, ...extra }` — extra top-level members, e.g. `{ jobId }`. */
export function resource<A extends object>(type: string, id: string, attributes: A, extra: Record<string, unknown> = {}): ResourceDocument<A> {
  return { data: { id, type, attributes }, ...extra };
}

export function sparse<A extends object>(r: Resource<A>, fields?: SparseFields): Resource<Partial<A>> {
  const keep = fields?.[r.type];
  if (!keep) return r;
  const attributes: Record<string, unknown> = {};
  for (const k of keep) if (Object.prototype.hasOwnProperty.call(r.attributes, k)) attributes[k] = (r.attributes as Record<string, unknown>)[k];
  return { id: r.id, type: r.type, attributes: attributes as Partial<A> };
}

const isResource = (v: unknown): v is Resource =>
  typeof v === 'object' && v !== null && typeof (v as Resource).type === 'string' && typeof (v as Resource).attributes === 'object';

/** Applies sparse fieldsets to any document whose `data` is a resource or an array of them. */
export function applySparseFields<T>(doc: T, fields?: SparseFields): T {
  if (!fields || !doc || typeof doc !== 'object' || !('data' in doc)) return doc;
  const data = (doc as { data: unknown }).data;
  if (Array.isArray(data)) return { ...doc, data: data.map((d) => (isResource(d) ? sparse(d, fields) : d)) };
  if (isResource(data)) return { ...doc, data: sparse(data, fields) };
  return doc;
}

export function errorDocument(errors: ErrorObject[], meta?: Record<string, unknown>): ErrorDocument {
  return meta ? { errors, meta } : { errors };
}

// ---------------------------------------------------------------- zod schemas for OpenAPI
/**
 * Marks in the OpenAPI output: the document moves a schema carrying `x-resource-type` (a resource
 * object) to `components.schemas.<Type>` (e.g. `instances` → `Instance`, its attributes →
 * `InstanceAttributes`), and one carrying `x-schema-name` to `components.schemas.<name>`, so
 * generated clients get named types. See openapi.ts.
 */
export const RESOURCE_TYPE_MARK = 'x-resource-type';
export const SCHEMA_NAME_MARK = 'x-schema-name';

/** The JSON:API resource object `{id, type, attributes}` of `type`, marked for a named component schema. */
export function resourceObjectSchema<T extends z.ZodType>(type: string, attributes: T) {
  return z.object({ id: z.string(), type: z.literal(type), attributes }).meta({ [RESOURCE_TYPE_MARK]: type });
}

export const listMetaSchema = z
  .object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() })
  .meta({ [SCHEMA_NAME_MARK]: 'ListMeta' });
export const listLinksSchema = z
  .object({ first: z.string(), last: z.string(), prev: z.string().optional(), next: z.string().optional() })
  .meta({ [SCHEMA_NAME_MARK]: 'ListLinks' });

export function resourceSchema<T extends z.ZodType>(type: string, attributes: T, extra: z.ZodRawShape = {}) {
  return z.object({ data: resourceObjectSchema(type, attributes), ...extra });
}

/** A list's document; `meta` adds the fields a list reports beside its page (e.g. a usage window's totals). */
export function collectionSchema<T extends z.ZodType>(type: string, attributes: T, meta: z.ZodRawShape = {}) {
  return z.object({ data: z.array(resourceObjectSchema(type, attributes)), meta: Object.keys(meta).length ? listMetaSchema.extend(meta) : listMetaSchema, links: listLinksSchema });
}

export const errorObjectSchema = z.object({
  status: z.string(),
  code: z.string(),
  detail: z.string(),
  source: z.object({ pointer: z.string().optional(), parameter: z.string().optional(), header: z.string().optional() }).optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
export const errorDocumentSchema = z.object({ errors: z.array(errorObjectSchema), meta: z.record(z.string(), z.unknown()).optional() });
