/** What a list handler returns: items + total; the pipeline turns it into the collection envelope. */
import type { Resource } from './envelope';

export class ListResult<A extends object = Record<string, unknown>> {
  constructor(readonly items: Resource<A>[], readonly total: number) {}
}

export const listResult = <A extends object>(items: Resource<A>[], total: number): ListResult<A> => new ListResult(items, total);
