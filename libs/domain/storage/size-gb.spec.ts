import { z } from 'zod';
import { bodyErrors } from '../../http/src/validation';
import { sizeGbSchema } from './size-gb';

describe('sizeGb', () => {
  it.each([1, 2, 100, 65535, 65536])('accepts %p', (size) => {
    expect(sizeGbSchema.parse(size)).toBe(size);
  });

  it.each([0, -1, 65537, 1.5, '10', null, Number.NaN, Number.POSITIVE_INFINITY])('refuses %p', (size) => {
    const r = sizeGbSchema.safeParse(size);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues[0].message).toBe('sizeGb must be an integer from 1 to 65536');
  });

  it('refuses at the sizeGb pointer, and says when it is missing', () => {
    const body = z.object({ name: z.string(), sizeGb: sizeGbSchema, region: z.string() });
    const r = body.safeParse({ name: 'data', sizeGb: 70000, region: 'eu-1' });
    expect(r.success).toBe(false);
    if (!r.success) expect(bodyErrors(r.error, '')).toEqual([{ detail: 'sizeGb must be an integer from 1 to 65536', source: { pointer: '/sizeGb' } }]);
    const missing = body.safeParse({ name: 'data', region: 'eu-1' });
    expect(missing.success).toBe(false);
    if (!missing.success) expect(bodyErrors(missing.error, '')).toEqual([{ detail: 'sizeGb is required', source: { pointer: '/sizeGb' } }]);
  });
});
