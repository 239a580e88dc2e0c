/** What a list handler returns: items + total; the pipeline turns it into the collection envelope. */
import type { Resource } from './envelope';

export class ListResult<A extends object = Record<string, unknown>> {
  constructor(
    readonly items: Resource<A>[],
    readonly total: number,
    /** Route-specific members added to `meta` next to the pagination ones. */
    readonly extraMeta?: Record<string, unknown>,
  ) {}
}

export const listResult = <A extends object>(items: Resource<A>[], total: number, extraMeta?: Record<string, unknown>): ListResult<A> => new ListResult(items, total, extraMeta);
