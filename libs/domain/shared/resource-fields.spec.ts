import { z } from 'zod';
import { resourceFields } from './resource-fields';

const FIELDS = resourceFields(
  z.object({ name: z.string(), email: z.string().nullable(), payment: z.object({ debitId: z.string() }).nullable(), createdAt: z.string() }),
  {
    shape: { email: z.string(), paymentId: z.string().nullable() },
    replaces: ['payment'],
    from: (d) => ({ email: d.email ?? '', paymentId: d.payment?.debitId ?? null }),
  },
);

describe('resourceFields', () => {
  const doc = { id: 'r1', _position: 7, projectId: 'p1', name: 'a', email: null, payment: { debitId: 'd1' }, createdAt: '2030-01-01T00:00:00.000Z' };

  it('answers exactly the declared attributes: model keys and replaced fields stay out, derived ones are computed', () => {
    expect(FIELDS.attributesOf(doc)).toEqual({ name: 'a', email: '', paymentId: 'd1', createdAt: '2030-01-01T00:00:00.000Z' });
  });

  it('keeps the declared order, a derived field in its stored field’s place and a new one in the replaced field’s', () => {
    expect(Object.keys(FIELDS.attributesOf(doc))).toEqual(['name', 'email', 'paymentId', 'createdAt']);
    expect(Object.keys(FIELDS.attributes.shape)).toEqual(['name', 'email', 'paymentId', 'createdAt']);
  });

  it('describes what it answers: the answer parses with the attributes schema, whose JSON schema is closed', () => {
    expect(FIELDS.attributes.strict().safeParse(FIELDS.attributesOf(doc)).success).toBe(true);
    const json = z.toJSONSchema(FIELDS.attributes, { io: 'output' }) as { additionalProperties?: boolean; properties: Record<string, unknown> };
    expect(json.additionalProperties).toBe(false);
    expect(Object.keys(json.properties)).toEqual(['name', 'email', 'paymentId', 'createdAt']);
  });

  it('the stored schema is the document’s: request bodies pick from it', () => {
    expect(FIELDS.stored.pick({ name: true }).safeParse({ name: 'a' }).success).toBe(true);
    expect(FIELDS.stored.shape.email.safeParse(null).success).toBe(true);
  });
});
