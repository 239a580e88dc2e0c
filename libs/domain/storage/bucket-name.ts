import { z } from 'zod';

/**
 * S3's naming rules for general purpose buckets (DECISIONS 14), so a name accepted here can be
 * created at any S3-compatible provider, AWS included. Uniqueness per provider (409 CONFLICT) is
 * not a property of the name: the create's decider checks it against the provider's buckets.
 */
export const BUCKET_NAME_MIN = 3;
export const BUCKET_NAME_MAX = 63;

/** Prefixes and suffixes S3 reserves for its own features (punycode, access points, aliases). */
export const S3_RESERVED_PREFIXES: readonly string[] = ['xn--', 'sthree-', 'amzn-s3-demo-'];
export const S3_RESERVED_SUFFIXES: readonly string[] = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

const ALLOWED = /^[a-z0-9.-]*$/;
const ENDS = /^[a-z0-9](?:.*[a-z0-9])?$/s;
/** Four dot-separated numbers, whether or not each is a valid octet: S3 refuses the shape. */
const IPV4_SHAPE = /^\d+\.\d+\.\d+\.\d+$/;

/** The first rule the name breaks, as a message for the field, or null for a valid name. */
export function bucketNameProblem(name: string): string | null {
  if (name.length < BUCKET_NAME_MIN || name.length > BUCKET_NAME_MAX) return `bucket name must be ${BUCKET_NAME_MIN} to ${BUCKET_NAME_MAX} characters long`;
  if (!ALLOWED.test(name)) return 'bucket name may contain only lowercase letters, digits, hyphens and dots';
  if (!ENDS.test(name)) return 'bucket name must begin and end with a lowercase letter or a digit';
  if (name.includes('..')) return 'bucket name must not contain two adjacent dots';
  if (IPV4_SHAPE.test(name)) return 'bucket name must not be formatted as an IP address';
  const prefix = S3_RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `bucket name must not begin with ${prefix}`;
  const suffix = S3_RESERVED_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return `bucket name must not end with ${suffix}`;
  return null;
}

export const isValidBucketName = (name: string): boolean => bucketNameProblem(name) === null;

export const bucketNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'name is required' : 'bucket name must be a string') })
  .superRefine((name, ctx) => {
    const problem = bucketNameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe(`S3 rules: ${BUCKET_NAME_MIN}-${BUCKET_NAME_MAX} lowercase letters, digits, hyphens and dots; begins and ends with a letter or digit; no "..", not an IP address; unique per provider`);
