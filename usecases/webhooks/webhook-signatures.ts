import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import Stripe from 'stripe';
import type { AppConfig } from '../../libs/config/src/config';
import type { InboundWebhookSource } from '../../libs/domain/webhooks/inbound';

/** Stripe's own tolerance for `t=` (DECISIONS 13: 5 minutes). */
export const STRIPE_TOLERANCE_S = 300;

export type Verified = { ok: true; deliveryId: string } | { ok: false; reason: string };

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function hexEqual(expected: string, given: string | undefined): boolean {
  if (!given || !/^[0-9a-f]+$/i.test(given)) return false;
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(given, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

// Verification needs no API key: the SDK's webhook helper only computes HMACs.
const stripeWebhooks = new Stripe('sk_webhook_verification_only').webhooks;

/**
 * Checks a delivery's signature over the raw body with the source's secret (DECISIONS 10 and 13) and
 * names the delivery: Stripe's event id, GitHub's X-GitHub-Delivery, a hash of the body for Paystack
 * (which sends no delivery id; a redelivery carries the same body). A source without a configured
 * secret accepts nothing.
 */
export function verifyDelivery(source: InboundWebhookSource, rawBody: string, headers: Record<string, string | string[] | undefined>, config: AppConfig, nowMs: number): Verified {
  switch (source) {
    case 'stripe': {
      const secret = config.payments.stripeWebhookSecret;
      const signature = header(headers, 'stripe-signature');
      if (!secret || !signature) return { ok: false, reason: 'no secret or no Stripe-Signature' };
      try {
        // constructEvent checks v1 = HMAC-SHA256("<t>.<raw body>") and |now - t| <= tolerance.
        const event = stripeWebhooks.constructEvent(rawBody, signature, secret, STRIPE_TOLERANCE_S, undefined, nowMs);
        return { ok: true, deliveryId: event.id };
      } catch (err) {
        return { ok: false, reason: (err as Error).message };
      }
    }
    case 'paystack': {
      const secret = config.payments.paystack?.secretKey;
      if (!secret) return { ok: false, reason: 'no secret' };
      const expected = createHmac('sha512', secret).update(rawBody, 'utf8').digest('hex');
      if (!hexEqual(expected, header(headers, 'x-paystack-signature'))) return { ok: false, reason: 'x-paystack-signature does not match' };
      return { ok: true, deliveryId: createHash('sha256').update(rawBody, 'utf8').digest('hex') };
    }
    case 'github': {
      const secret = config.inboundWebhooks.githubSecret;
      const given = header(headers, 'x-hub-signature-256');
      if (!secret || !given?.startsWith('sha256=')) return { ok: false, reason: 'no secret or no X-Hub-Signature-256' };
      const expected = createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
      if (!hexEqual(expected, given.slice('sha256='.length))) return { ok: false, reason: 'X-Hub-Signature-256 does not match' };
      const delivery = header(headers, 'x-github-delivery');
      if (!delivery) return { ok: false, reason: 'no X-GitHub-Delivery' };
      return { ok: true, deliveryId: delivery };
    }
  }
}

/** The headers a delivery is stored with: what identifies and signs it, never a credential. */
const KEPT_HEADERS = ['content-type', 'user-agent', 'stripe-signature', 'x-paystack-signature', 'x-hub-signature-256', 'x-github-delivery', 'x-github-event', 'x-github-hook-id', 'x-request-id'];
export function storedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const v = header(headers, name);
    if (v !== undefined) kept[name] = v.slice(0, 1024);
  }
  return kept;
}
