import { z } from 'zod';

/**
 * A hand-written resource's fields, declared once (issue 21 §5). `stored` is one zod object: the
 * attributes its read model keeps, with the limits a request must meet. From it come
 *  - the document type: `z.output<stored>` (plus the model's own keys: id, project, ordering);
 *  - the request bodies: `stored.pick(...)` with the request's own modifiers (a default, optional);
 *  - the answer's attributes and their OpenAPI schema: `attributes`, and `attributesOf(doc)`, which
 *    copies exactly the declared keys, so a document key the contract does not name never reaches
 *    an answer.
 * Where the contract shows a field other than as stored, `derived` says so explicitly: the field's
 * answered schema and how it is computed from the document.
 */
export interface ResourceFields<S extends z.ZodObject, A> {
  stored: S;
  /** The answer's attributes: `stored`, with the derived fields' schemas in place of (or beside) the stored ones. */
  attributes: z.ZodObject;
  attributesOf(doc: z.output<S>): A;
}

type Derived<S extends z.ZodObject, X extends z.ZodRawShape, R extends keyof z.output<S>> = {
  /** The derived fields' answered schemas: a stored field of the same name is answered as this instead. */
  shape: X;
  from: (doc: z.output<S>) => z.output<z.ZodObject<X>>;
  /** Stored fields this answer does not show as stored (a derived field computed from them takes the first one's place). */
  replaces?: readonly R[];
};
type Answered<S extends z.ZodObject, X extends z.ZodRawShape, R extends PropertyKey> = Omit<z.output<S>, keyof X | R> & z.output<z.ZodObject<X>>;

export function resourceFields<S extends z.ZodObject, X extends z.ZodRawShape = Record<never, never>, R extends keyof z.output<S> = never>(
  stored: S,
  derived?: Derived<S, X, R>,
): ResourceFields<S, Answered<S, X, R>> {
  const derivedShape: Record<string, z.core.$ZodType> = derived?.shape ?? {};
  const replaced = new Set<PropertyKey>(derived?.replaces ?? []);
  const added = Object.keys(derivedShape).filter((k) => !(k in stored.shape));
  const shape: Record<string, z.core.$ZodType> = {};
  for (const [k, schema] of Object.entries(stored.shape as Record<string, z.core.$ZodType>)) {
    if (!replaced.has(k)) shape[k] = derivedShape[k] ?? schema;
    else if (k === derived?.replaces?.[0]) for (const a of added) shape[a] = derivedShape[a];
  }
  for (const a of added) shape[a] ??= derivedShape[a];
  const attributes = z.object(shape);
  const keys = Object.keys(shape);
  const derivedKeys = new Set(Object.keys(derivedShape));
  return {
    stored,
    attributes,
    attributesOf: (doc) => {
      const computed = (derived?.from(doc) ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      // In the declared order, a derived field in its stored field's place.
      for (const k of keys) out[k] = derivedKeys.has(k) ? computed[k] : (doc as Record<string, unknown>)[k];
      return out as Answered<S, X, R>;
    },
  };
}
