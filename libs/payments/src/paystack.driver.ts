import { PaymentProviderError, UnsupportedPaymentOperation, type PaymentOutcome, type PaymentProvider } from './payment-provider.port';

export interface PaystackSettings {
  secretKey: string;
  /** PAYSTACK_API_URL, e.g. https://api.paystack.co */
  apiUrl: string;
}

interface PaystackAnswer<D> {
  status: boolean;
  message: string;
  data: D;
}

/**
 * Paystack over its HTTP API (there is no official Node SDK): `POST /transaction/initialize` and
 * `GET /transaction/verify/{reference}` with the secret key as a bearer token. Amounts are kobo, our
 * reference is Paystack's reference. Paystack has no setup intents.
 */
export class PaystackPaymentDriver implements PaymentProvider {
  readonly name = 'paystack' as const;
  readonly driver = 'paystack';

  constructor(
    private readonly settings: PaystackSettings,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  private async request<D>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<D> {
    let res: Response;
    try {
      res = await this.fetchFn(`${this.settings.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.settings.secretKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new PaymentProviderError('paystack', `${method} ${path} could not be sent: ${(err as Error).message}`, { cause: err });
    }
    const answer = (await res.json().catch(() => null)) as PaystackAnswer<D> | null;
    if (!res.ok || !answer?.status) throw new PaymentProviderError('paystack', `${method} ${path} answered ${res.status}: ${answer?.message ?? 'no JSON answer'}`);
    return answer.data;
  }

  createSetupIntent(): Promise<never> {
    return Promise.reject(new UnsupportedPaymentOperation('paystack', 'setup intents'));
  }

  confirmSetupIntent(): Promise<never> {
    return Promise.reject(new UnsupportedPaymentOperation('paystack', 'setup intents'));
  }

  async initializePayment(input: { reference: string; projectId: string; amountCents: number; currency: string; email: string; returnUrl: string }) {
    const data = await this.request<{ authorization_url: string; reference: string }>('POST', '/transaction/initialize', {
      email: input.email,
      amount: input.amountCents,
      currency: input.currency,
      reference: input.reference,
      callback_url: input.returnUrl,
      metadata: { projectId: input.projectId },
    });
    return { providerPaymentId: data.reference, authorizationUrl: data.authorization_url };
  }

  async verifyPayment({ providerPaymentId }: { reference: string; providerPaymentId: string }): Promise<PaymentOutcome> {
    const data = await this.request<{ status: string; amount: number; currency: string }>('GET', `/transaction/verify/${encodeURIComponent(providerPaymentId)}`);
    const status = data.status === 'success' ? 'succeeded' : data.status === 'failed' || data.status === 'abandoned' || data.status === 'reversed' ? 'failed' : 'pending';
    return { status, amountCents: typeof data.amount === 'number' ? data.amount : null, currency: data.currency ?? null };
  }
}
