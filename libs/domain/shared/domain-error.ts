/**
 * The codes a business rule may refuse with (spec §7 and DECISIONS §1 and §14 onwards). A closed
 * union: a misspelt code does not compile. It is the domain's part of the one union of error codes
 * (`ErrorCode`, libs/application), which libs/http maps to statuses in one table.
 */
export const DOMAIN_ERROR_CODES = [
  'BAD_REQUEST',
  'NOT_FOUND',
  'PROVIDER_NOT_FOUND',
  'CONFLICT',
  'INVALID_STATE',
  'INVALID_PLAN',
  'INVALID_REGION',
  'INVALID_OS',
  'RETRY_FAILED',
  'UNSUPPORTED_PROVIDER',
  'INSUFFICIENT_FUNDS',
  'INVALID_PROMO_CODE',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** A business rule refusal with a stable code from the error taxonomy. */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

/**
 * A schema re-checked as an invariant refused the command's fields: BAD_REQUEST, keeping the zod
 * error as the cause, so the HTTP layer answers the edge's per-field sentences and pointers rather
 * than zod's own text.
 */
export function invalidFields(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): DomainError {
  return new DomainError('BAD_REQUEST', error.issues.map((i) => `${i.path.map(String).join('.') || 'fields'}: ${i.message}`).join('; '), { cause: error });
}

/** An event as decided by the domain, before the application gives it an id and metadata. */
export interface DomainEvent<T extends string = string, D = Record<string, unknown>> {
  type: T;
  data: D;
}

export interface Decider<C, E extends DomainEvent, S> {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S) => E[];
  /** Keep the state of a long-lived stream at a revision every so often (see `SnapshotPolicy`). */
  snapshot?: SnapshotPolicy;
}

/**
 * How often a fold's state is kept (`every` events folded since the last one kept), under which name:
 * `name@version` identifies the fold, so a change to `evolve` or to the state's shape bumps
 * `version` and earlier snapshots are simply not read. For streams that grow for as long as their
 * owner lives (sequences, wallets, a project's roles or members); a resource's own short stream
 * needs none.
 */
export interface SnapshotPolicy {
  name: string;
  version: number;
  every: number;
}
