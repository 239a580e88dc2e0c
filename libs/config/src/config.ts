import { z } from 'zod';
import * as path from 'node:path';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const claimName = /^[A-Za-z0-9_.:\/-]{1,128}$/;

/**
 * One validated configuration object, read once at start. `PROFILE=server` switches every port to
 * its server engine (PostgreSQL, MongoDB, Redis, Kafka) with the loopback URLs of scripts/engines.sh.
 */
export const configSchema = z
  .object({
    PROFILE: z.enum(['embedded', 'server']).default('embedded'),
    HOST: z.string().default('127.0.0.1'),
    PORT: port.default(8443),
    HTTP_PORT: port.optional(),
    /** The inference gateway's port (DECISIONS 19), TLS like the API; `npm start` serves it beside the API. */
    GATEWAY_PORT: port.default(8444),
    /**
     * The gateway's base URL as browsers reach it, for the web console (its gateway page calls it, and
     * the console's CSP names it). Default: PUBLIC_URL's host (else HOST) on GATEWAY_PORT, over https.
     */
    GATEWAY_PUBLIC_URL: z
      .url({ protocol: /^https$/, message: 'must be an https URL' })
      .refine((v) => URL.canParse(v) && ((u) => !u.search && !u.hash && !u.username && !u.password && u.pathname === '/')(new URL(v)), 'must be an origin (no path, query, fragment or credentials)')
      .optional(),
    TRUST_PROXY: bool.default(false),
    /** The base URL clients call (behind a proxy or a DNS name): the OpenAPI document's `servers`. Default: the listening URL. */
    PUBLIC_URL: z
      .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
      .refine((v) => URL.canParse(v) && ((u) => !u.search && !u.hash && !u.username && !u.password)(new URL(v)), 'must be a base URL (no query, fragment or credentials)')
      .optional(),
    TLS_CERT_FILE: z.string().optional(),
    TLS_KEY_FILE: z.string().optional(),
    DATA_DIR: z.string().default('./.data'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    EVENT_STORE: z.enum(['pglite', 'postgres', 'eventstoredb']).optional(),
    READ_STORE: z.enum(['memory', 'mongodb']).optional(),
    PG_URL: z.string().optional(),
    PG_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('eventstore'),
    /** An initialized PGlite cluster (a `dumpDataDir()` tarball) a new embedded store starts from instead of running initdb; the test command makes one. */
    PGLITE_TEMPLATE: z.string().optional(),
    ESDB_URL: z.string().optional(),
    MONGO_URL: z.string().optional(),
    MONGO_DB: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
    REDIS_URL: z.string().optional(),
    KAFKA_BROKERS: z.string().optional(),
    KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]+$/).default('cloud'),
    /** api: HTTP only (a worker runs subscriptions); worker: subscriptions only; all: both. */
    ROLE: z.enum(['all', 'api', 'worker']).default('all'),
    CONSISTENCY_WAIT_MS: positiveInt.default(2000),
    /** The event streams' keep-alive (DECISIONS 20): SSE heartbeat comments, id-only frames of a quiet filter, WebSocket pings. */
    EVENT_STREAM_HEARTBEAT_MS: positiveInt.default(15_000),
    RATE_LIMIT_PROJECT_PER_MIN: positiveInt.default(1000),
    RATE_LIMIT_KEY_PER_MIN: positiveInt.default(100),
    RATE_LIMIT_IP_PER_MIN: positiveInt.default(100),
    API_KEY_PEPPER: z.string().min(32).optional(),
    /**
     * AES-256-GCM key for provider credentials at rest: 32 bytes as 64 hex characters or base64.
     * Unset: generated once into `<DATA_DIR>/secrets-credentials.key` (mode 0600). Every process of a
     * deployment must use the same key.
     */
    CREDENTIALS_KEY: z
      .string()
      .refine((v) => (/^[0-9a-fA-F]{64}$/.test(v) ? true : /^[A-Za-z0-9+/]{43}=$/.test(v)), 'must be 32 bytes: 64 hex characters or base64')
      .optional(),
    /** Provider simulator latencies: realistic (default) or zero (tests, benches). */
    SIMULATOR_LATENCY: z.enum(['realistic', 'zero']).default('realistic'),
    JOB_CONCURRENCY: positiveInt.default(32),
    /**
     * Identity-provider JWTs (DECISIONS 3). Setting JWT_ISSUER enables them and needs exactly one of
     * JWT_JWKS_URL (fetched, cached, refetched on an unknown `kid`) or JWT_JWKS_FILE (read at start).
     */
    JWT_ISSUER: z.string().min(1).optional(),
    JWT_JWKS_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
    JWT_JWKS_FILE: z.string().min(1).optional(),
    /** One audience or a comma-separated list; when set, the token's `aud` must contain one of them. */
    JWT_AUDIENCE: z.string().min(1).optional(),
    JWT_PROJECT_CLAIM: z.string().regex(claimName, 'must be a claim name').default('project'),
    /** Claim carrying owner|admin|developer|viewer; a token without it acts as viewer (least privilege). */
    JWT_ROLE_CLAIM: z.string().regex(claimName, 'must be a claim name').default('role'),
    JWT_CLOCK_TOLERANCE_S: z.coerce.number().int().min(0).max(300).default(30),
    /** Outbound mail (invitations, ticket forwarding, email endpoints). Unset: mail is written to the log, secrets left out. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps:// URL' }).optional(),
    MAIL_FROM: z.string().min(3).default('Cloud API <no-reply@cloud.invalid>'),
    /**
     * The bootstrap project's owner email (DECISIONS 17): a ticket written with an API key of a project
     * without an owner member names this address as its author's.
     */
    BOOTSTRAP_OWNER_EMAIL: z.email().default('owner@cloud.invalid'),
    /** Where new support tickets and messages are forwarded by email (DECISIONS 17); unset: not forwarded by email. */
    SUPPORT_FORWARD_EMAIL: z.email().optional(),
    /** A GitHub-compatible issues API (base URL, `owner/repo`, token) that tickets are forwarded to; all three or none. */
    TRACKER_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
    TRACKER_REPO: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/repo').optional(),
    TRACKER_TOKEN: z.string().min(1).optional(),
    /** Operator setting: lets webhook endpoints and outbound calls reach loopback, link-local and private addresses (tests). */
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: bool.default(false),
    /** The invoice PDF's issuer (DECISIONS 16): name, address lines separated by `;`, tax id, billing contact, and the footer's sentence. */
    INVOICE_ISSUER_NAME: z.string().trim().min(1).max(200).default('Cloud Provisioning Platform'),
    INVOICE_ISSUER_ADDRESS: z.string().max(500).optional(),
    INVOICE_ISSUER_TAX_ID: z.string().trim().min(1).max(64).optional(),
    INVOICE_ISSUER_EMAIL: z.email().optional(),
    INVOICE_FOOTER: z.string().trim().min(1).max(300).default('Payment is due by the due date. Questions about this invoice: open a support ticket with category billing.'),
    /** DNS servers webhook target names are resolved with (`ip` or `ip:port`, comma-separated); unset: the system's. */
    DNS_SERVERS: z
      .string()
      .refine((v) => v.split(',').every((s) => /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$|^[0-9a-fA-F:]+$/.test(s.trim())), 'must be IP addresses (ip or ip:port), comma-separated')
      .optional(),
    /** The bound of a name lookup on a request path (webhook create, endpoint tests): past it the name counts as not resolving yet. */
    DNS_TIMEOUT_MS: positiveInt.max(30_000).default(2000),
    /** Stripe (official SDK); STRIPE_API_URL points it elsewhere (stripe-mock in tests). */
    STRIPE_SECRET_KEY: z.string().min(1).optional(),
    STRIPE_API_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional(),
    STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
    PAYSTACK_SECRET_KEY: z.string().min(1).optional(),
    PAYSTACK_API_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).default('https://api.paystack.co'),
    /** Secret of inbound `POST /v1/webhooks/github` deliveries (X-Hub-Signature-256). */
    GITHUB_WEBHOOK_SECRET: z.string().min(1).optional(),
  })
  .superRefine((c, ctx) => {
    if ([c.TRACKER_URL, c.TRACKER_REPO, c.TRACKER_TOKEN].some((v) => v !== undefined) && ![c.TRACKER_URL, c.TRACKER_REPO, c.TRACKER_TOKEN].every((v) => v !== undefined))
      ctx.addIssue({ code: 'custom', path: ['TRACKER_URL'], message: 'set TRACKER_URL, TRACKER_REPO and TRACKER_TOKEN together' });
    if (!c.JWT_ISSUER) {
      // Rejected rather than ignored: without an issuer JWT authentication is off.
      for (const k of ['JWT_JWKS_URL', 'JWT_JWKS_FILE', 'JWT_AUDIENCE'] as const)
        if (c[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'needs JWT_ISSUER (JWT authentication is off without it)' });
      return;
    }
    if (!c.JWT_JWKS_URL === !c.JWT_JWKS_FILE) ctx.addIssue({ code: 'custom', path: ['JWT_JWKS_URL'], message: 'set exactly one of JWT_JWKS_URL or JWT_JWKS_FILE when JWT_ISSUER is set' });
    if (c.JWT_AUDIENCE !== undefined && !c.JWT_AUDIENCE.split(',').some((a) => a.trim())) ctx.addIssue({ code: 'custom', path: ['JWT_AUDIENCE'], message: 'must name at least one audience' });
  })
  .transform((c) => {
    const server = c.PROFILE === 'server';
    const eventStore = c.EVENT_STORE ?? (c.ESDB_URL ? 'eventstoredb' : server || c.PG_URL ? 'postgres' : 'pglite');
    const readStore = c.READ_STORE ?? (server || c.MONGO_URL ? 'mongodb' : 'memory');
    return {
      profile: c.PROFILE,
      host: c.HOST,
      port: c.PORT,
      httpPort: c.HTTP_PORT,
      gatewayPort: c.GATEWAY_PORT,
      trustProxy: c.TRUST_PROXY,
      publicUrl: c.PUBLIC_URL?.replace(/\/+$/, ''),
      console: consoleOrigins(c),
      tls: c.TLS_CERT_FILE && c.TLS_KEY_FILE ? { certFile: c.TLS_CERT_FILE, keyFile: c.TLS_KEY_FILE } : null,
      dataDir: path.resolve(c.DATA_DIR),
      logLevel: c.LOG_LEVEL,
      role: c.ROLE,
      eventStore: {
        kind: eventStore,
        pgUrl: c.PG_URL ?? (server ? 'postgres://cloud:cloud@127.0.0.1:55432/cloud' : undefined),
        pgSchema: c.PG_SCHEMA,
        pgliteTemplate: c.PGLITE_TEMPLATE,
        esdbUrl: c.ESDB_URL,
      },
      readStore: { kind: readStore, mongoUrl: c.MONGO_URL ?? (server ? 'mongodb://127.0.0.1:57017/cloud' : undefined), mongoDb: c.MONGO_DB },
      redisUrl: c.REDIS_URL ?? (server ? 'redis://127.0.0.1:56379' : undefined),
      kafka: (c.KAFKA_BROKERS ?? (server ? '127.0.0.1:59092' : undefined))
        ? { brokers: (c.KAFKA_BROKERS ?? '127.0.0.1:59092').split(',').map((b) => b.trim()), topicPrefix: c.KAFKA_TOPIC_PREFIX }
        : null,
      consistencyWaitMs: c.CONSISTENCY_WAIT_MS,
      eventStreams: { heartbeatMs: c.EVENT_STREAM_HEARTBEAT_MS },
      rateLimits: { perProject: c.RATE_LIMIT_PROJECT_PER_MIN, perKey: c.RATE_LIMIT_KEY_PER_MIN, perIp: c.RATE_LIMIT_IP_PER_MIN },
      apiKeyPepper: c.API_KEY_PEPPER,
      credentialsKey: c.CREDENTIALS_KEY,
      simulatorLatency: c.SIMULATOR_LATENCY,
      jobConcurrency: c.JOB_CONCURRENCY,
      mail: { smtpUrl: c.SMTP_URL, from: c.MAIL_FROM },
      support: {
        bootstrapOwnerEmail: c.BOOTSTRAP_OWNER_EMAIL,
        forwardEmail: c.SUPPORT_FORWARD_EMAIL,
        tracker: c.TRACKER_URL && c.TRACKER_REPO && c.TRACKER_TOKEN ? { url: c.TRACKER_URL.replace(/\/+$/, ''), repo: c.TRACKER_REPO, token: c.TRACKER_TOKEN } : null,
      },
      webhooks: {
        allowPrivateTargets: c.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
        dns: { servers: c.DNS_SERVERS?.split(',').map((s) => s.trim()), timeoutMs: c.DNS_TIMEOUT_MS },
      },
      payments: {
        stripe: c.STRIPE_SECRET_KEY ? { secretKey: c.STRIPE_SECRET_KEY, apiUrl: c.STRIPE_API_URL, webhookSecret: c.STRIPE_WEBHOOK_SECRET } : null,
        stripeWebhookSecret: c.STRIPE_WEBHOOK_SECRET,
        paystack: c.PAYSTACK_SECRET_KEY ? { secretKey: c.PAYSTACK_SECRET_KEY, apiUrl: c.PAYSTACK_API_URL.replace(/\/+$/, '') } : null,
      },
      inboundWebhooks: { githubSecret: c.GITHUB_WEBHOOK_SECRET },
      invoiceIssuer: {
        name: c.INVOICE_ISSUER_NAME,
        addressLines: (c.INVOICE_ISSUER_ADDRESS ?? '').split(';').map((l) => l.trim()).filter(Boolean),
        taxId: c.INVOICE_ISSUER_TAX_ID ?? null,
        email: c.INVOICE_ISSUER_EMAIL ?? null,
        footer: c.INVOICE_FOOTER,
      },
      /** null: bearer tokens are only accepted as API keys. */
      jwt: c.JWT_ISSUER
        ? {
            issuer: c.JWT_ISSUER,
            jwksUrl: c.JWT_JWKS_URL,
            jwksFile: c.JWT_JWKS_FILE ? path.resolve(c.JWT_JWKS_FILE) : undefined,
            audience: c.JWT_AUDIENCE?.split(',').map((a) => a.trim()).filter(Boolean),
            projectClaim: c.JWT_PROJECT_CLAIM,
            roleClaim: c.JWT_ROLE_CLAIM,
            clockToleranceSec: c.JWT_CLOCK_TOLERANCE_S,
          }
        : null,
    };
  })
  .superRefine((c, ctx) => {
    if (c.eventStore.kind === 'postgres' && !c.eventStore.pgUrl) ctx.addIssue({ code: 'custom', path: ['PG_URL'], message: 'required when EVENT_STORE=postgres' });
    if (c.eventStore.kind === 'eventstoredb' && !c.eventStore.esdbUrl) ctx.addIssue({ code: 'custom', path: ['ESDB_URL'], message: 'required when EVENT_STORE=eventstoredb' });
    if (c.readStore.kind === 'mongodb' && !c.readStore.mongoUrl) ctx.addIssue({ code: 'custom', path: ['MONGO_URL'], message: 'required when READ_STORE=mongodb' });
  });

export type AppConfig = z.infer<typeof configSchema>;

/**
 * The web console's two origins: its own (PUBLIC_URL's, else https://HOST:PORT), which the gateway
 * allows for CORS on its /api/* routes, and the gateway's (GATEWAY_PUBLIC_URL, else the console's
 * host on GATEWAY_PORT), which the console calls. Undefined where a browser could not name it (an
 * unspecified or ephemeral listening address without a public URL).
 */
function consoleOrigins(c: { HOST: string; PORT: number; GATEWAY_PORT: number; PUBLIC_URL?: string; GATEWAY_PUBLIC_URL?: string }): { origin?: string; gatewayUrl?: string } {
  const wildcard = c.HOST === '0.0.0.0' || c.HOST === '::' || c.HOST === '';
  const listening = wildcard ? undefined : c.HOST.includes(':') ? `[${c.HOST}]` : c.HOST;
  const hostname = c.PUBLIC_URL ? new URL(c.PUBLIC_URL).hostname : listening;
  const origin = c.PUBLIC_URL ? new URL(c.PUBLIC_URL).origin : listening && c.PORT ? `https://${listening}:${c.PORT}` : undefined;
  const gatewayUrl = c.GATEWAY_PUBLIC_URL ? new URL(c.GATEWAY_PUBLIC_URL).origin : hostname && c.GATEWAY_PORT ? `https://${hostname}:${c.GATEWAY_PORT}` : undefined;
  return { origin, gatewayUrl };
}

export class ConfigError extends Error {}

/** Reads the environment; a bad value stops the process with a message naming it. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Record<string, string> = {}): AppConfig {
  const source: Record<string, string> = {};
  for (const key of Object.keys(configSchema.in.shape)) {
    const v = overrides[key] ?? env[key];
    if (v !== undefined && v !== '') source[key] = v;
  }
  const parsed = configSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(config)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
