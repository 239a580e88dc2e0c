import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { addressRefusal, checkWebhookUrl } from '../../domain/notifications/webhook-target';
import type { Mailer } from './mailer';

/** What one attempt did: a 2xx from the receiver (or a mail the SMTP server accepted) is a success. */
export interface SendResult {
  success: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** The endpoint as a sender needs it (the secret read from the vault). */
export interface EndpointTarget {
  type: 'webhook' | 'email';
  url: string | null;
  email: string | null;
  secret: string | null;
}

/** One message: the Standard Webhooks `webhook-id` (the same on every attempt), its event name and JSON body. */
export interface OutboundMessage {
  webhookId: string;
  name: string;
  body: string;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * A DNS lookup that refuses names resolving to an address outside public unicast (DECISIONS 10),
 * used by the socket itself: the address checked is the address connected to (no rebinding window).
 */
export type Resolver = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

export function guardedLookup(allowPrivate: boolean, resolve: Resolver = dns.lookup): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '', 4);
      const refused = addresses.map((a) => addressRefusal(a.address, allowPrivate)).find((r) => r !== null);
      if (refused) return callback(Object.assign(new Error(refused), { code: 'EREFUSEDTARGET' }), options.all ? [] : '', 4);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}

/**
 * Sends to notification endpoints: webhooks as signed POSTs (the `standardwebhooks` package's
 * signer: `webhook-id`, `webhook-timestamp`, `webhook-signature`), emails through the Mailer.
 * Connections are kept alive per origin; each attempt re-checks the URL and the resolved address.
 */
export class EndpointSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(
    private readonly mailer: Mailer,
    private readonly allowPrivate: boolean,
    private readonly nowMs: () => number,
    maxSockets = 256,
    /** The system resolver (tests give names an address without a DNS server). */
    resolve: Resolver = dns.lookup,
  ) {
    const lookup = guardedLookup(allowPrivate, resolve);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets, lookup } as http.AgentOptions);
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets, lookup } as https.AgentOptions);
  }

  async send(target: EndpointTarget, message: OutboundMessage): Promise<SendResult> {
    const started = performance.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
    try {
      if (target.type === 'email') {
        await this.mailer.send({ to: target.email!, subject: `Notification: ${message.name}`, text: `${message.name}\n\n${JSON.stringify(JSON.parse(message.body), null, 2)}\n`, messageId: `<${message.webhookId}@notifications.cloud.invalid>` });
        return done({ success: true, statusCode: null, error: null });
      }
      const checked = checkWebhookUrl(target.url ?? '', this.allowPrivate);
      if (!checked.ok) return done({ success: false, statusCode: null, error: checked.reason });
      const statusCode = await this.post(checked.url, target.secret!, message);
      return done({ success: statusCode >= 200 && statusCode < 300, statusCode, error: statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}` });
    } catch (err) {
      return done({ success: false, statusCode: null, error: err instanceof Error ? err.message.slice(0, 500) : String(err).slice(0, 500) });
    }
  }

  /** The signed POST; resolves with the receiver's status (redirects are not followed: a 3xx is a failure). */
  private post(url: URL, secret: string, message: OutboundMessage): Promise<number> {
    const at = new Date(this.nowMs());
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'cloud-api-webhooks/1',
      'webhook-id': message.webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(message.webhookId, at, message.body),
      'content-length': String(Buffer.byteLength(message.body)),
    };
    const secure = url.protocol === 'https:';
    return new Promise<number>((resolve, reject) => {
      const req = (secure ? https : http).request(url, { method: 'POST', headers, agent: secure ? this.httpsAgent : this.httpAgent, timeout: WEBHOOK_TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end(message.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
