/** pino logger with secret redaction, and URL scrubbing for request logs. */
import pino from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-service-api-key"]',
  'headers.cookie',
  'apiKey', 'key', 'secret', 'password', 'credentials',
  '*.apiKey', '*.key', '*.secret', '*.password', '*.credentials',
  '*.*.apiKey', '*.*.key', '*.*.secret', '*.*.password', '*.*.credentials',
];

export interface LoggerOptions { level?: string; name?: string; destination?: pino.DestinationStream }

export function createLogger(options: LoggerOptions = {}): pino.Logger {
  const opts: pino.LoggerOptions = {
    level: options.level ?? 'info',
    name: options.name,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}

const SECRET_PARAM = /(key|token|secret|password|signature|credential|ticket)/i;

/** Path segments that are credentials themselves: an invitation link's token (`/v1/invites/{token}/accept`). */
const SECRET_PATH = /^(\/v1\/invites\/)[^/?]+/;

/** The URL with the values of secret-looking query parameters, and secret path segments, replaced. */
export function scrubUrl(raw: string): string {
  const url = raw.replace(SECRET_PATH, '$1[REDACTED]');
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const k of [...new Set(params.keys())]) if (SECRET_PARAM.test(k)) params.set(k, '[REDACTED]');
  return `${url.slice(0, q)}?${params.toString()}`;
}
