import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PaystackTwin {
  url: string;
  /** The customer pays: the transaction's status becomes `success`. */
  pay(reference: string): void;
  /** Every request as received (method, path, authorization, body). */
  requests: { method: string; path: string; authorization: string | undefined; body: unknown }[];
  close(): Promise<void>;
}

/**
 * An HTTP twin of the two Paystack endpoints the driver calls (`POST /transaction/initialize`,
 * `GET /transaction/verify/{reference}`), answering in Paystack's documented envelope
 * (`{status, message, data}`, amounts in kobo) and refusing a wrong secret key with 401. No Paystack
 * test server can be run locally (Paystack publishes neither a mock nor an OpenAPI document), so the
 * driver is tested against this.
 */
export async function startPaystackTwin(secretKey: string): Promise<PaystackTwin> {
  const transactions = new Map<string, { reference: string; amount: number; currency: string; email: string; status: string }>();
  const requests: PaystackTwin['requests'] = [];
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    let body: Record<string, unknown> = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return send(res, 400, { status: false, message: 'Invalid JSON' });
    }
    const path = (req.url ?? '').split('?')[0];
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    if (req.headers.authorization !== `Bearer ${secretKey}`) return send(res, 401, { status: false, message: 'Invalid key' });
    if (req.method === 'POST' && path === '/transaction/initialize') {
      const { email, amount, reference, currency } = body as { email?: string; amount?: number; reference?: string; currency?: string };
      if (typeof email !== 'string' || !email.includes('@')) return send(res, 400, { status: false, message: 'Invalid Email Address Passed' });
      if (!Number.isInteger(amount) || (amount as number) <= 0) return send(res, 400, { status: false, message: 'Invalid Amount Sent' });
      const ref = reference ?? randomBytes(6).toString('hex');
      if (transactions.has(ref)) return send(res, 400, { status: false, message: 'Duplicate Transaction Reference' });
      transactions.set(ref, { reference: ref, amount: amount as number, currency: currency ?? 'NGN', email, status: 'pending' });
      const accessCode = randomBytes(8).toString('hex');
      return send(res, 200, { status: true, message: 'Authorization URL created', data: { authorization_url: `${twin.url}/checkout/${accessCode}`, access_code: accessCode, reference: ref } });
    }
    const verify = /^\/transaction\/verify\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && verify) {
      const t = transactions.get(decodeURIComponent(verify[1]));
      if (!t) return send(res, 400, { status: false, message: 'Transaction reference not found' });
      return send(res, 200, { status: true, message: 'Verification successful', data: { reference: t.reference, amount: t.amount, currency: t.currency, status: t.status, customer: { email: t.email } } });
    }
    return send(res, 404, { status: false, message: 'Not found' });
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const twin: PaystackTwin = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pay: (reference) => {
      const t = transactions.get(reference);
      if (!t) throw new Error(`no transaction ${reference}`);
      t.status = 'success';
    },
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return twin;
}
