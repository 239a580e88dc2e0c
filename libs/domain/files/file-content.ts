import { createHash } from 'node:crypto';
import type { FileEncoding } from './events';

/** DECISIONS 1: a version holds at most 512 KiB (the request body may be up to 1 MiB). */
export const MAX_FILE_CONTENT_BYTES = 512 * 1024;

/** What a stored version is: its bytes as text, how they read back, their length and digest. */
export interface StoredContent {
  encoding: FileEncoding;
  text: string;
  size: number;
  checksum: string;
}

/**
 * RFC 8785 (JCS) serialisation: object keys sorted by UTF-16 code units, no whitespace, strings and
 * numbers as ECMAScript's JSON.stringify writes them. The same JSON value always has the same bytes,
 * so its checksum does not depend on how a client ordered keys or spaced its body.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError('content holds a number JSON cannot represent');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  // Own keys only (a parsed `__proto__` key is an own property and is kept as data).
  return `{${Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`)
    .join(',')}}`;
}

/** A string is stored as its UTF-8 bytes; any other JSON value as its canonical serialisation. */
export function storedContent(content: unknown): StoredContent {
  const encoding: FileEncoding = typeof content === 'string' ? 'text' : 'json';
  const text = typeof content === 'string' ? content : canonicalJson(content);
  const bytes = Buffer.from(text, 'utf8');
  return { encoding, text, size: bytes.length, checksum: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

/** The content a stored version answers: the text, or the JSON value its bytes serialise. */
export function readContent(encoding: FileEncoding, text: string): unknown {
  return encoding === 'json' ? JSON.parse(text) : text;
}
