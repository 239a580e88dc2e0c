import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';
import { eventually } from '../support/wait';

/** The name a DNS query asks for (RFC 1035 §4.1.2: length-prefixed labels after the 12-byte header). */
function questionName(packet: Buffer): string {
  const labels: string[] = [];
  for (let at = 12; at < packet.length && packet[at] !== 0; at += packet[at] + 1) labels.push(packet.subarray(at + 1, at + 1 + packet[at]).toString('latin1'));
  return labels.join('.');
}

/**
 * Issue 24: a request waited on other work's DNS. The server resolves through a DNS server that
 * takes every query and never answers (DNS_SERVERS), so each lookup of a webhook name stalls until
 * its bound; deliveries to such names run at the same time.
 */
describe.each<Profile>(['embedded', 'server'])('webhook name lookups are bounded (%s profile)', (profile) => {
  let srv: TestServer;
  let dns: Socket;
  const queries: string[] = [];

  beforeAll(async () => {
    dns = createSocket('udp4');
    dns.on('message', (m) => queries.push(questionName(m)));
    await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve));
    const { port } = dns.address() as AddressInfo;
    srv = await startTestServer(profile, { DNS_SERVERS: `127.0.0.1:${port}`, DNS_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await srv?.stop();
    dns?.close();
  });

  it('answers a create and an endpoint test while the stalled server still holds their queries, deliveries to stalled names running beside them', async () => {
    const api = srv.as(srv.bootstrap.apiKey);
    for (let i = 0; i < 6; i++) expect((await api.post('/v1/notifications/endpoints', { type: 'webhook', url: `https://hook-${i}.stalled.example/x`, events: ['*'] })).status).toBe(201);
    // Deliveries to the six names start: their lookups stall too (on the deliveries' own resolver).
    const before = queries.length;
    for (let i = 0; i < 10; i++) expect((await api.post('/v1/notifications', { title: `n${i}`, message: 'to stalled names' })).status).toBe(201);
    await eventually(async () => queries.slice(before).filter((q) => q.endsWith('.stalled.example')).length, (n) => n >= 6);

    // A name that does not answer within DNS_TIMEOUT_MS counts as not resolving yet: the create is accepted.
    const created = await api.post('/v1/notifications/endpoints', { type: 'webhook', url: 'https://late.stalled.example/x', events: ['*'] });
    expect(created.status).toBe(201);
    expect(queries).toContain('late.stalled.example'); // asked, and never answered

    // The test route sends to each endpoint on the request path: each lookup is bounded the same way.
    const tested = await api.post('/v1/notifications/test');
    expect(tested.status).toBe(200);
    const results = tested.body.data.attributes.results as { success: boolean; error: string }[];
    expect(results).toHaveLength(7);
    for (const r of results) expect(r).toMatchObject({ success: false, error: expect.stringMatching(/did not resolve/) });
  });
});
