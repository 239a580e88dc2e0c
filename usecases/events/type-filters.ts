import { contextOf } from '../../libs/messaging/src/cloudevents';

const FULL_TYPE = /^[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*\.v[1-9][0-9]*$/;
const CONTEXT = /^([a-z][a-z0-9]*)\.?$/;

/**
 * What a `type` filter is: a whole type, a bare context (`compute`, `compute.`), or any other prefix
 * of a type. The list turns it into an index equality where it can; the streams match with it.
 */
export type TypeFilter = { type: string } | { context: string } | { prefix: string };

export function typeFilterOf(value: string): TypeFilter {
  if (FULL_TYPE.test(value)) return { type: value };
  const context = CONTEXT.exec(value);
  return context ? { context: context[1]! } : { prefix: value };
}

export function typeMatches(f: TypeFilter, type: string): boolean {
  return 'type' in f ? type === f.type : 'context' in f ? contextOf(type) === f.context : type.startsWith(f.prefix);
}
