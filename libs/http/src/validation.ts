/** zod issues → JSON:API error items (pointers for bodies, parameters for query/path), in sentences for people. */
import { z } from 'zod';
import { ApiError, ApiErrorItem, badRequest, invalidQuery } from './errors';

const escapeToken = (t: PropertyKey): string => String(t).replace(/~/g, '~0').replace(/\//g, '~1');

export function jsonPointer(prefix: string, path: readonly PropertyKey[]): string {
  return prefix + path.map((p) => '/' + escapeToken(p)).join('');
}

/** `tags.env`, `resourceIds[0]`: how a message names a field. */
export function fieldLabel(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

// ---------------------------------------------------------------- messages for people
type RawIssue = z.core.$ZodRawIssue & { path?: PropertyKey[]; input?: unknown; schema?: unknown };

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'an integer', boolean: 'true or false', object: 'an object', array: 'an array',
  record: 'an object', bigint: 'an integer', date: 'a date', null: 'null', tuple: 'an array', map: 'an object', set: 'an array',
};
const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address', url: 'a URL', uuid: 'a UUID', guid: 'a GUID', datetime: 'an ISO 8601 date-time (e.g. 2030-01-01T00:00:00Z)',
  date: 'an ISO 8601 date (YYYY-MM-DD)', time: 'an ISO 8601 time', duration: 'an ISO 8601 duration', ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address', cidrv4: 'an IPv4 CIDR range', cidrv6: 'an IPv6 CIDR range', base64: 'base64 text', base64url: 'base64url text',
  hostname: 'a hostname', e164: 'a phone number in E.164 form', jwt: 'a JWT', cuid: 'a CUID', cuid2: 'a CUID2', ulid: 'a ULID', nanoid: 'a nanoid',
  emoji: 'an emoji', lowercase: 'lowercase', uppercase: 'uppercase',
};
const SAFE = Number.MAX_SAFE_INTEGER;
const show = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'bigint' ? String(v) : JSON.stringify(v) ?? String(v));

interface NumberBounds { minValue?: number | null; maxValue?: number | null; isInt?: boolean }
interface StringBounds { minLength?: number | null; maxLength?: number | null }

/** `an integer from 1 to 65536`, `a number of at least 0`: a number schema's bounds, when the issue's schema has them. */
function numberRule(schema: unknown, int: boolean): string {
  const s = (schema ?? {}) as NumberBounds;
  const isInt = int || !!s.isInt;
  const min = typeof s.minValue === 'number' && Number.isFinite(s.minValue) && Math.abs(s.minValue) < SAFE ? s.minValue : undefined;
  const max = typeof s.maxValue === 'number' && Number.isFinite(s.maxValue) && Math.abs(s.maxValue) < SAFE ? s.maxValue : undefined;
  const kind = isInt ? 'an integer' : 'a number';
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (min !== undefined) return `${kind} of at least ${min}`;
  if (max !== undefined) return `${kind} of at most ${max}`;
  return isInt ? `an integer from ${-SAFE} to ${SAFE}` : kind;
}

function sizeRule(issue: { code: 'too_small' | 'too_big'; origin?: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean }, schema: unknown): string {
  const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
  const n = Number(bound);
  switch (issue.origin) {
    case 'string': {
      const s = (schema ?? {}) as StringBounds;
      if (issue.code === 'too_small' && n === 1) return 'must not be empty';
      if (typeof s.minLength === 'number' && s.minLength > 1 && typeof s.maxLength === 'number') return `must be ${s.minLength} to ${s.maxLength} characters`;
      return issue.code === 'too_small' ? `must be at least ${show(bound)} characters` : `must be at most ${show(bound)} characters`;
    }
    case 'array':
    case 'set':
      if (issue.code === 'too_small' && n === 1) return 'must not be empty';
      return issue.code === 'too_small' ? `must have at least ${show(bound)} item${n === 1 ? '' : 's'}` : `must have at most ${show(bound)} item${n === 1 ? '' : 's'}`;
    case 'number':
    case 'int':
    case 'bigint':
      return `must be ${numberRule(schema, issue.origin === 'int')}`;
    default:
      return issue.code === 'too_small' ? `must be at least ${show(bound)}` : `must be at most ${show(bound)}`;
  }
}

const listValues = (values: readonly unknown[]): string =>
  values.length === 1 ? show(values[0]) : values.length === 2 ? `${show(values[0])} or ${show(values[1])}` : `one of ${values.map(show).join(', ')}`;

/** What a field must be, from a union's branches (`a string or an array`), or undefined when they disagree on more than type. */
function unionRule(errors: readonly (readonly z.core.$ZodIssue[])[]): string | undefined {
  const kinds: string[] = [];
  for (const branch of errors) {
    const own = branch.filter((i) => i.path.length === 0);
    if (own.length !== 1) return undefined;
    const i = own[0];
    const kind = i.code === 'invalid_type' ? TYPE_NAMES[i.expected] : i.code === 'invalid_value' ? listValues(i.values) : undefined;
    if (!kind) return undefined;
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return kinds.length ? kinds.join(' or ') : undefined;
}

/** The rule an issue broke, as the end of a sentence about the field (`must be a string`, `is required`). */
function rule(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined && 'input' in issue) return 'is required';
      if (issue.expected === 'int' || issue.expected === 'number') return `must be ${numberRule(issue.schema, issue.expected === 'int')}`;
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    }
    case 'too_small':
    case 'too_big':
      return sizeRule(issue, issue.schema);
    case 'invalid_format': {
      const f = issue as z.core.$ZodIssueInvalidStringFormat;
      if (f.format === 'starts_with') return `must start with ${show((f as { prefix?: string }).prefix)}`;
      if (f.format === 'ends_with') return `must end with ${show((f as { suffix?: string }).suffix)}`;
      if (f.format === 'includes') return `must contain ${show((f as { includes?: string }).includes)}`;
      if (f.format === 'regex') return 'has an invalid format';
      return `must be ${FORMAT_NAMES[f.format] ?? `a valid ${f.format}`}`;
    }
    case 'invalid_value':
      return `must be ${listValues(issue.values)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${show(issue.divisor)}`;
    case 'invalid_union': {
      const r = unionRule(issue.errors ?? []);
      return r ? `must be ${r}` : 'is not valid';
    }
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid element';
    default:
      return 'is not valid';
  }
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A zod error map (passed as `{ error }` where a request is parsed): a sentence naming the field,
 * used only where the schema gave no message of its own. `root` names the whole value.
 */
export function humanErrorMap(root: string): (issue: RawIssue) => string {
  return (issue) => {
    const path = issue.path ?? [];
    if (path.length === 0 && issue.code === 'invalid_type' && issue.input === undefined && 'input' in issue) return capitalize(`${root} is required`);
    return path.length ? `${fieldLabel(path)} ${rule(issue)}` : capitalize(`${root} ${rule(issue)}`);
  };
}

export const BODY_PARSE = { error: humanErrorMap('the request body') } as const;
export const QUERY_PARSE = { error: humanErrorMap('the query') } as const;
export const PARAMS_PARSE = { error: humanErrorMap('the path') } as const;

// ---------------------------------------------------------------- error items
/** Which key(s) an issue is about: unrecognized_keys issues name the keys, the rest a path. */
function issuePaths(issue: z.core.$ZodIssue): PropertyKey[][] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => [...issue.path, k]);
  return [issue.path];
}

/**
 * zod's own English messages (`Invalid input: expected string, received undefined`, `Too small: …`):
 * what an issue carries when it was parsed without `humanErrorMap`, e.g. by a command handler or a
 * decider rather than at the edge. A schema's own message never looks like these.
 */
const ZOD_DEFAULT_MESSAGE = /^(Invalid input(: .*)?|Invalid option: .*|Too (big|small): .*|Invalid string: .*|Invalid number: .*|Invalid (key|value|element) in .*|Invalid discriminator value\. .*|Unrecognized keys?: .*|Invalid [a-zA-Z0-9 ]+)$/s;

/** The sentence `humanErrorMap` would have given, rebuilt from a finished issue (which keeps no schema and no input). */
function rebuiltDetail(issue: z.core.$ZodIssue, path: readonly PropertyKey[]): string {
  const raw = { ...issue } as RawIssue;
  if (issue.code === 'invalid_type') raw.input = /received undefined$/.test(issue.message) ? undefined : null;
  if ((issue.code === 'too_small' || issue.code === 'too_big') && (issue.origin === 'number' || issue.origin === 'int')) {
    const bound = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
    (raw as { schema?: unknown }).schema = issue.code === 'too_small' ? { minValue: bound } : { maxValue: bound };
  }
  return path.length ? `${fieldLabel(path)} ${rule(raw)}` : capitalize(`the value ${rule(raw)}`);
}

/** A schema's own message, completed with the field's name when it is a fragment (`must be a valid hostname`). */
function issueDetail(issue: z.core.$ZodIssue, path: readonly PropertyKey[], unknownKey: string): string {
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${unknownKey}`;
  if (issue.code !== 'custom' && ZOD_DEFAULT_MESSAGE.test(issue.message)) return rebuiltDetail(issue, path);
  if (/^must /.test(issue.message)) return `${path.length ? fieldLabel(path) : 'The value'} ${issue.message}`;
  return issue.message;
}

/** One error object per offending field (first issue per field wins). */
export function bodyErrors(error: z.ZodError, pointerPrefix: string): ApiErrorItem[] {
  const seen = new Map<string, ApiErrorItem>();
  for (const issue of error.issues) {
    for (const path of issuePaths(issue)) {
      const pointer = jsonPointer(pointerPrefix, path);
      if (!seen.has(pointer)) seen.set(pointer, { detail: issueDetail(issue, path, String(path[path.length - 1] ?? '')), source: { pointer } });
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
      if (seen.has(key)) continue;
      let detail = issue.code === 'unrecognized_keys' ? `Unknown parameter: ${parameter}` : issueDetail(issue, path, parameter);
      if (parameter && !detail.includes(parameter)) detail = `${parameter}: ${detail}`;
      seen.set(key, { detail, source: parameter ? { parameter } : undefined });
    }
  }
  return [...seen.values()];
}

export const zodBodyError = (e: z.ZodError, pointerPrefix = ''): ApiError => badRequest(bodyErrors(e, pointerPrefix));
export const zodQueryError = (e: z.ZodError): ApiError => invalidQuery(parameterErrors(e));
export const zodParamsError = (e: z.ZodError): ApiError => badRequest(parameterErrors(e));
