/**
 * Every keyed route (DECISIONS 5: `idempotent: true`) recovers a lost answer: a retry after a crash
 * between the write's commit and its answer runs the same request again (libs/http/src/pipeline.ts,
 * `rerunnable`), whose handler derives its ids from the key (`requestScopedId`) and finds its own
 * events (`handleCommand` of a `recovering` request) instead of writing again, then answers through its
 * live read path. A 204 route answers 204. A route listed below still rebuilds its answer with a
 * `recover` query of its own (the `Written*` path, issue 21 §2); it leaves the list when its handler is
 * idempotent by its key, and a new keyed route may not join it.
 */
import '../routes';
import { routeRegistry } from '../../../../libs/http/src/route';

const STILL_REBUILT: string[] = [
  "PATCH /v1/invoices/:id/pay",
  "POST /v1/billing/checkout/:checkoutId/complete",
  "POST /v1/billing/checkout/:checkoutId/promo",
  "POST /v1/billing/checkout/setup-intent",
  "POST /v1/billing/convert",
  "POST /v1/billing/credits/promo",
  "POST /v1/billing/wallets/:currency/credit",
  "POST /v1/billing/wallets/:currency/debit",
  "POST /v1/iam/api-keys",
  "POST /v1/iam/api-keys/:keyId/rotate",
  "POST /v1/iam/members",
  "POST /v1/iam/roles",
  "POST /v1/iam/team/members",
  "POST /v1/invoices",
  "POST /v1/kyc",
  "POST /v1/notifications",
  "POST /v1/notifications/endpoints",
  "POST /v1/payments/:provider/initialize",
  "POST /v1/payments/stripe-initialize",
  "POST /v1/payments/verify",
  "POST /v1/projects/:projectId/invites",
  "POST /v1/projects/:projectId/invites/:inviteId/resend",
  "POST /v1/support",
  "POST /v1/support/:id/messages",
  "POST /v1/workspaces/members",
];

describe('keyed routes recover their answer after a crash (DECISIONS 5)', () => {
  const keyed = routeRegistry().filter((r) => r.idempotent);
  const name = (r: (typeof keyed)[number]) => `${r.method} ${r.routePath}`;

  it('every keyed route re-runs its request, but for the listed ones still rebuilt by a query', () => {
    expect(keyed.length).toBeGreaterThan(60);
    expect(keyed.filter((r) => r.recover).map(name).sort()).toEqual([...STILL_REBUILT].sort());
  });
});
