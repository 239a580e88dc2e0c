import { z } from 'zod';

export type Tag = { key: string; value: string };

export const MAX_TAGS = 50;
const tagKey = z.string().min(1).max(128);
const tagValue = z.string().max(256);

const byKey = (a: Tag, b: Tag) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** Either stored form (an object of string values, or the array) as the array ordered by key. */
export function tagList(tags: Record<string, string> | Tag[] | null | undefined): Tag[] {
  const list = Array.isArray(tags) ? tags : Object.entries(tags ?? {}).map(([key, value]) => ({ key, value }));
  return [...list].sort(byKey);
}

/**
 * DECISIONS 13, for every resource with tags: a request sends an object of string values or an
 * array of `{key, value}` (keys unique, at most MAX_TAGS); events, documents and responses hold
 * the array ordered by key.
 */
export const tagsSchema = z
  .union([z.record(tagKey, tagValue), z.array(z.object({ key: tagKey, value: tagValue }))])
  .transform((t, ctx): Tag[] => {
    const list = tagList(t);
    if (new Set(list.map((e) => e.key)).size !== list.length) ctx.addIssue({ code: 'custom', message: 'tag keys must be unique' });
    if (list.length > MAX_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} tags` });
    return list;
  })
  .pipe(z.array(z.object({ key: z.string(), value: z.string() })))
  .describe('An object of string values or an array of `{key, value}`; answered as the array ordered by key');
