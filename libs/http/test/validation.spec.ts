import { z } from 'zod';
import { BODY_PARSE, bodyErrors, parameterErrors, QUERY_PARSE } from '../src/validation';

const details = (schema: z.ZodType, value: unknown): Record<string, string> => {
  const r = schema.safeParse(value, BODY_PARSE);
  if (r.success) throw new Error('expected a failure');
  return Object.fromEntries(bodyErrors(r.error, '').map((e) => [e.source!.pointer!, e.detail]));
};

describe('validation messages for people', () => {
  const Body = z.strictObject({
    name: z.string().min(1).max(64),
    sizeGb: z.number().int().min(1).max(65536),
    count: z.number().int().optional(),
    ratio: z.number().min(0).optional(),
    billing: z.enum(['hourly', 'monthly']).optional(),
    mode: z.literal('fast').optional(),
    ids: z.array(z.string()).min(1).max(3).optional(),
    tags: z.record(z.string(), z.string()).optional(),
    email: z.string().email().optional(),
    expiresAt: z.string().datetime().optional(),
    locked: z.boolean().optional(),
    host: z.string().regex(/^[a-z]+$/, 'must be a valid hostname').optional(),
    code: z.string().regex(/^[A-Z]{3}$/).optional(),
    either: z.union([z.string(), z.array(z.string())]).optional(),
    note: z.string().refine(() => false, { message: 'note is refused' }).optional(),
  });

  it('names the field and the rule', () => {
    expect(details(Body, {})).toEqual({ '/name': 'name is required', '/sizeGb': 'sizeGb is required' });
    expect(
      details(Body, {
        name: 'x'.repeat(65), sizeGb: 1.5, count: 1e300, ratio: -1, billing: 'weekly', mode: 'slow', ids: [], tags: { env: 1 }, email: 'x',
        expiresAt: 'soon', locked: 'yes', host: 'A_B', code: 'ab', either: 5, note: 'n', extra: 1,
      }),
    ).toEqual({
      '/name': 'name must be at most 64 characters',
      '/sizeGb': 'sizeGb must be an integer from 1 to 65536',
      '/count': 'count must be an integer from -9007199254740991 to 9007199254740991',
      '/ratio': 'ratio must be a number of at least 0',
      '/billing': 'billing must be hourly or monthly',
      '/mode': 'mode must be fast',
      '/ids': 'ids must not be empty',
      '/tags/env': 'tags.env must be a string',
      '/email': 'email must be an email address',
      '/expiresAt': 'expiresAt must be an ISO 8601 date-time (e.g. 2030-01-01T00:00:00Z)',
      '/locked': 'locked must be true or false',
      '/host': 'host must be a valid hostname',
      '/code': 'code has an invalid format',
      '/either': 'either must be a string or an array',
      '/note': 'note is refused',
      '/extra': 'Unknown field: extra',
    });
    expect(details(Body, { name: '', sizeGb: '5', ids: ['a', 'b', 'c', 'd'] })).toEqual({
      '/name': 'name must not be empty',
      '/sizeGb': 'sizeGb must be an integer from 1 to 65536',
      '/ids': 'ids must have at most 3 items',
    });
    expect(details(z.array(z.object({ id: z.string() })), [{ id: 1 }])).toEqual({ '/0/id': '[0].id must be a string' });
  });

  it('describes the whole body when it is missing or not an object', () => {
    expect(details(Body, undefined)).toEqual({ '': 'The request body is required' });
    expect(details(Body, [])).toEqual({ '': 'The request body must be an object' });
  });

  it('names query parameters without repeating them', () => {
    const Query = z.strictObject({ providerId: z.string(), state: z.enum(['a', 'b']).optional() });
    const r = Query.safeParse({ state: 'c', other: '1' }, QUERY_PARSE);
    expect(r.success).toBe(false);
    expect(parameterErrors(r.error!)).toEqual([
      { detail: 'providerId is required', source: { parameter: 'providerId' } },
      { detail: 'state must be a or b', source: { parameter: 'state' } },
      { detail: 'Unknown parameter: other', source: { parameter: 'other' } },
    ]);
  });

  it('names the parameter in a sentence even for a parse without the message map', () => {
    const r = z.object({ limit: z.string() }).safeParse({});
    expect(parameterErrors(r.error!)[0].detail).toBe('limit is required');
  });
});
