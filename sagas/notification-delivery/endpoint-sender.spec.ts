import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Mailer } from '../../libs/runtime/src/mailer';
import { EndpointSender, type Resolver } from '../../libs/runtime/src/endpoint-sender';

const noMail: Mailer = { kind: 'log', send: async () => undefined, close: () => undefined };
const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const message = { webhookId: 'msg_1', name: 'job.failed', body: '{"type":"job.failed"}' };

describe('EndpointSender', () => {
  let server: http.Server;
  let url: string;
  const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(req.url === '/gone' ? 410 : 204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends a signed POST the standardwebhooks verifier accepts; a non-2xx is a failure with its status', async () => {
    const sender = new EndpointSender(noMail, true, () => Date.now());
    const ok = await sender.send({ type: 'webhook', url: `${url}/ok`, email: null, secret }, message);
    expect(ok).toMatchObject({ success: true, statusCode: 204, error: null });
    const h = got[0].headers as Record<string, string>;
    expect(new Webhook(secret).verify(got[0].body, h)).toEqual({ type: 'job.failed' });
    expect(h['webhook-id']).toBe('msg_1');
    expect(await sender.send({ type: 'webhook', url: `${url}/gone`, email: null, secret }, message)).toMatchObject({ success: false, statusCode: 410, error: 'HTTP 410' });
    sender.close();
  });

  it('without the private-target setting, refuses at connect a name that resolves to loopback, and plain http', async () => {
    // A name whose address is only known at connect time (rebinding): the socket's own lookup refuses it.
    const names: Record<string, string> = { 'hooks.rebind.test': '127.0.0.1', 'metadata.rebind.test': '169.254.169.254', 'inside.rebind.test': '10.0.0.7' };
    const resolve: Resolver = (host, _o, cb) => (names[host] ? cb(null, [{ address: names[host], family: 4 }]) : cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []));
    const sender = new EndpointSender(noMail, false, () => Date.now(), 8, resolve);
    const before = got.length;
    const port = new URL(url).port;
    const outcomes = await Promise.all(Object.keys(names).map((host) => sender.send({ type: 'webhook', url: `https://${host}:${port}/x`, email: null, secret }, message)));
    expect(outcomes.map((o) => [o.success, o.statusCode, o.error])).toEqual([
      [false, null, 'url must not point at loopback, link-local or private addresses (127.0.0.1 is loopback)'],
      [false, null, 'url must not point at loopback, link-local or private addresses (169.254.169.254 is linkLocal)'],
      [false, null, 'url must not point at loopback, link-local or private addresses (10.0.0.7 is private)'],
    ]);
    // with the setting, the same name is connected to, through the same lookup
    const allowed = new EndpointSender(noMail, true, () => Date.now(), 8, resolve);
    expect((await allowed.send({ type: 'webhook', url: `http://hooks.rebind.test:${port}/ok`, email: null, secret }, message)).success).toBe(true);
    allowed.close();
    expect((await sender.send({ type: 'webhook', url: `${url}/ok`, email: null, secret }, message)).error).toBe('url must use https');
    expect(got.length).toBe(before + 1);
    sender.close();
  });
});
