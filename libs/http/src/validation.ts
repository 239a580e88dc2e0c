/** zod issues → JSON:API error items (pointers for bodies, parameters for query/path). */
import { z } from 'zod';
import { ApiError, ApiErrorItem, badRequest, invalidQuery } from './errors';

const escapeToken = (t: PropertyKey): string => String(t).replace(/~/g, '~0').replace(/\//g, '~1');

export function jsonPointer(prefix: string, path: readonly PropertyKey[]): string {
  return prefix + path.map((p) => '/' + escapeToken(p)).join('');
}

/** Which key(s) an issue is about: unrecognized_keys issues name the keys, the rest a path. */
function issuePaths(issue: z.core.$ZodIssue): PropertyKey[][] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => [...issue.path, k]);
  return [issue.path];
}

function issueDetail(issue: z.core.$ZodIssue, key: string): string {
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${key}`;
  return issue.message;
}

/** One error object per offending field (first issue per field wins). */
export function bodyErrors(error: z.ZodError, pointerPrefix: string): ApiErrorItem[] {
  const seen = new Map<string, ApiErrorItem>();
  for (const issue of error.issues) {
    for (const path of issuePaths(issue)) {
      const pointer = jsonPointer(pointerPrefix, path);
      if (!seen.has(pointer)) seen.set(pointer, { detail: issueDetail(issue, String(path[path.length - 1] ?? '')), source: { pointer } });
    }
  }
  return [...seen.values()];
}

export function parameterErrors(error: z.ZodError): ApiErrorItem[] {
  const seen = new Map<string, ApiErrorItem>();
  for (const issue of error.issues) {
    for (const path of issuePaths(issue)) {
      const parameter = path.length ? String(path[0]) : '';
      const key = parameter || '(query)';
      if (!seen.has(key)) seen.set(key, { detail: parameter ? `${parameter}: ${issue.message}` : issue.message, source: parameter ? { parameter } : undefined });
    }
  }
  return [...seen.values()];
}

export const zodBodyError = (e: z.ZodError, pointerPrefix = ''): ApiError => badRequest(bodyErrors(e, pointerPrefix));
export const zodQueryError = (e: z.ZodError): ApiError => invalidQuery(parameterErrors(e));
export const zodParamsError = (e: z.ZodError): ApiError => badRequest(parameterErrors(e));
