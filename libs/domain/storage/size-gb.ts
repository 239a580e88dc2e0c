import { z } from 'zod';

/** Volume and file-system sizes (DECISIONS 14), whole gigabytes. */
export const MIN_SIZE_GB = 1;
export const MAX_SIZE_GB = 65536;

const OUT_OF_RANGE = `sizeGb must be an integer from ${MIN_SIZE_GB} to ${MAX_SIZE_GB}`;

export const sizeGbSchema = z
  .number({ error: (issue) => (issue.input === undefined ? 'sizeGb is required' : OUT_OF_RANGE) })
  .int({ error: OUT_OF_RANGE })
  .min(MIN_SIZE_GB, { error: OUT_OF_RANGE })
  .max(MAX_SIZE_GB, { error: OUT_OF_RANGE })
  .describe(`Size in GB, ${MIN_SIZE_GB}-${MAX_SIZE_GB}`);
