/**
 * What use cases answer with, whatever transport shows it: a resource (type, id, attributes), and a
 * page of a list with its total. The HTTP edge wraps them in its envelopes (libs/http/src/envelope.ts),
 * the CLI and the event streams print them as they are.
 */

export interface Resource<A extends object = Record<string, unknown>> { id: string; type: string; attributes: A }

export function toResource<A extends object>(type: string, id: string, attributes: A): Resource<A> {
  return { id, type, attributes };
}

/** Map of a resource type → the attribute names a caller asked for (`fields[<type>]` over HTTP). */
export type SparseFields = Record<string, string[]>;

export interface SortKey { field: string; direction: 1 | -1 }

/** A list read as a use case takes it: the page, its size, the sort and the typed filters. */
export interface ListQuery<F = Record<string, unknown>> {
  page: number;
  limit: number;
  skip: number;
  sort: SortKey[];
  fields?: SparseFields;
  filters: F;
  /**
   * The id of the previous page's last item, when the caller came from it (an HTTP `next` link's
   * cursor): a store can seek past it instead of skipping `skip` (FindQuery.afterId); `skip` stays
   * the page's truth, used when the item is gone.
   */
  afterId?: string;
  /** The id of the next page's first item, when the caller came from it (an HTTP `prev` link's cursor): FindQuery.beforeId. */
  beforeId?: string;
}

/** What of a list query names its page (what list commands carry and `pageOf` reads). */
export type ListPage = Pick<ListQuery, 'sort' | 'skip' | 'limit' | 'afterId' | 'beforeId'>;

/** A list's page as a read-store find takes it: its sort, size, offset and, when known, the item before or after it. */
export function pageOf(list: ListPage): { sort: SortKey[]; skip: number; limit: number; afterId?: string; beforeId?: string } {
  return {
    sort: list.sort,
    skip: list.skip,
    limit: list.limit,
    ...(list.afterId !== undefined ? { afterId: list.afterId } : {}),
    ...(list.beforeId !== undefined ? { beforeId: list.beforeId } : {}),
  };
}

/** What a list use case returns: one page of items and the total; transports add their paging links. */
export class ListResult<A extends object = Record<string, unknown>> {
  constructor(
    readonly items: Resource<A>[],
    readonly total: number,
    /** List-specific members shown beside the paging ones (`meta` over HTTP). */
    readonly extraMeta?: Record<string, unknown>,
  ) {}
}

export const listResult = <A extends object>(items: Resource<A>[], total: number, extraMeta?: Record<string, unknown>): ListResult<A> => new ListResult(items, total, extraMeta);
