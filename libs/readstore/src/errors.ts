/**
 * Errors shared by every ReadStore adapter, so callers never depend on driver-specific errors.
 */

/** A write (or an index build) violated a unique index. MongoDB/FerretDB E11000 maps to this class. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly collection: string,
    message: string,
    /** Index name when known (e.g. `email_1`), otherwise undefined. */
    readonly index?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A filter/sort/paging argument outside the allowed query subset (see read-store.port.ts). */
export class InvalidQueryError extends Error {
  override readonly name = 'InvalidQueryError';
}

/** A document that cannot be stored (missing/invalid `id`, reserved `_id` field, ...). */
export class InvalidDocumentError extends Error {
  override readonly name = 'InvalidDocumentError';
}
