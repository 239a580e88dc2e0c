import { z } from 'zod';
import { bodyErrors } from '../../http/src/validation';
import { bucketNameProblem, bucketNameSchema, isValidBucketName } from './bucket-name';

describe('bucket names (S3 rules)', () => {
  it.each([
    'abc',
    'a'.repeat(63),
    'my-bucket',
    'logs.example.com',
    'a.b-c.1',
    '123',
    '0bucket9',
    'a-b',
    '1.2.3', // three numbers are not the shape of an IPv4 address
    '1.2.3.4.5',
    'v1.2.3.4',
    'axn--b',
    'bucket-s3alias-x',
  ])('accepts %j', (name) => {
    expect(bucketNameProblem(name)).toBeNull();
    expect(isValidBucketName(name)).toBe(true);
    expect(bucketNameSchema.parse(name)).toBe(name);
  });

  it.each([
    ['ab', 'bucket name must be 3 to 63 characters long'],
    ['', 'bucket name must be 3 to 63 characters long'],
    ['a'.repeat(64), 'bucket name must be 3 to 63 characters long'],
    ['My-Bucket', 'bucket name may contain only lowercase letters, digits, hyphens and dots'],
    ['my_bucket', 'bucket name may contain only lowercase letters, digits, hyphens and dots'],
    ['my bucket', 'bucket name may contain only lowercase letters, digits, hyphens and dots'],
    ['bücket', 'bucket name may contain only lowercase letters, digits, hyphens and dots'],
    ['abc\n', 'bucket name may contain only lowercase letters, digits, hyphens and dots'],
    ['-bucket', 'bucket name must begin and end with a lowercase letter or a digit'],
    ['bucket-', 'bucket name must begin and end with a lowercase letter or a digit'],
    ['.bucket', 'bucket name must begin and end with a lowercase letter or a digit'],
    ['bucket.', 'bucket name must begin and end with a lowercase letter or a digit'],
    ['a..b', 'bucket name must not contain two adjacent dots'],
    ['my..bucket', 'bucket name must not contain two adjacent dots'],
    ['192.168.0.1', 'bucket name must not be formatted as an IP address'],
    ['10.0.0.0', 'bucket name must not be formatted as an IP address'],
    ['999.999.999.999', 'bucket name must not be formatted as an IP address'],
    ['xn--bucket', 'bucket name must not begin with xn--'],
    ['sthree-bucket', 'bucket name must not begin with sthree-'],
    ['amzn-s3-demo-bucket', 'bucket name must not begin with amzn-s3-demo-'],
    ['bucket-s3alias', 'bucket name must not end with -s3alias'],
    ['bucket--ol-s3', 'bucket name must not end with --ol-s3'],
    ['bucket.mrap', 'bucket name must not end with .mrap'],
    ['bucket--x-s3', 'bucket name must not end with --x-s3'],
    ['bucket--table-s3', 'bucket name must not end with --table-s3'],
  ])('refuses %j: %s', (name, problem) => {
    expect(bucketNameProblem(name)).toBe(problem);
    expect(isValidBucketName(name)).toBe(false);
  });

  it('refuses at the name field pointer of a create body', () => {
    const body = z.object({ name: bucketNameSchema, region: z.string() });
    const r = body.safeParse({ name: 'a..b', region: 'eu-1' });
    expect(r.success).toBe(false);
    if (!r.success) expect(bodyErrors(r.error, '/data/attributes')).toEqual([{ detail: 'bucket name must not contain two adjacent dots', source: { pointer: '/data/attributes/name' } }]);
    const missing = body.safeParse({ region: 'eu-1' });
    expect(missing.success).toBe(false);
    if (!missing.success) expect(bodyErrors(missing.error, '')).toEqual([{ detail: 'name is required', source: { pointer: '/name' } }]);
    const notText = body.safeParse({ name: 42, region: 'eu-1' });
    expect(notText.success).toBe(false);
    if (!notText.success) expect(notText.error.issues.map((i) => [i.path, i.message])).toEqual([[['name'], 'bucket name must be a string']]);
  });
});
