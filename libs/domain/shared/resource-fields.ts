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

type Derived<S extends z.ZodObject, X extends z.ZodRawShape> = { shape: X; from: (doc: z.output<S>) => z.output<z.ZodObject<X>> };

export function resourceFields<S extends z.ZodObject, X extends z.ZodRawShape = Record<never, never>>(
  stored: S,
  derived?: Derived<S, X>,
): ResourceFields<S, Omit<z.output<S>, keyof X> & z.output<z.ZodObject<X>>> {
  const attributes = derived ? stored.extend(derived.shape) : stored;
  const keys = Object.keys(attributes.shape);
  const derivedKeys = new Set(Object.keys(derived?.shape ?? {}));
  return {
    stored,
    attributes,
    attributesOf: (doc) => {
      const computed = (derived?.from(doc) ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      // In the declared order, a derived field in its stored field's place.
      for (const k of keys) out[k] = derivedKeys.has(k) ? computed[k] : (doc as Record<string, unknown>)[k];
      return out as Omit<z.output<S>, keyof X> & z.output<z.ZodObject<X>>;
    },
  };
}
