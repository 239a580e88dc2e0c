import { X509Certificate } from 'node:crypto';
import { ProviderError, type ResourceCall } from '../src/driver.port';
import { SimulatorDriver } from '../src/simulator/simulator-driver';

const call = (over: Partial<ResourceCall> = {}): ResourceCall => ({
  resourceType: 'volume',
  operation: 'create',
  resourceId: 'vol-1',
  region: 'NYC',
  tags: {},
  attributes: { name: 'data', sizeGb: 100 },
  ...over,
});

const instant = (kind: 'provider_baremetal' | 'provider_publiccloud' | 'provider_multicloud' = 'provider_publiccloud') => SimulatorDriver.instant(kind);

describe('SimulatorDriver.resourceOperation', () => {
  it('answers the same for the same token, from any process, with an external id derived from the resource', async () => {
    const a = await instant().resourceOperation('job-1:r0:1', call());
    expect(await instant().resourceOperation('job-1:r0:1', call())).toEqual(a);
    expect(a.externalId).toMatch(/^sim-volume-[0-9a-f]{16}$/);
    // every operation on the resource names the same external id
    expect((await instant().resourceOperation('job-2:r0:1', call({ operation: 'attach' }))).externalId).toBe(a.externalId);
    expect((await instant().resourceOperation('job-3:r0:1', call({ operation: 'delete' }))).externalId).toBe(a.externalId);
    expect((await instant().resourceOperation('job-4:r0:1', call({ resourceId: 'vol-2' }))).externalId).not.toBe(a.externalId);
    expect((await instant('provider_multicloud').resourceOperation('job-1:r0:1', call())).externalId).not.toBe(a.externalId);
    expect((await instant().resourceOperation('job-5:r0:1', call({ resourceType: 'bucket' }))).externalId).toMatch(/^sim-bucket-/);
  });

  it('reports realistic attributes per resource type, derived from the resource', async () => {
    const s = instant();
    const eip = await s.resourceOperation('e:1', call({ resourceType: 'elastic-ip', resourceId: 'eip-1', attributes: {} }));
    expect(eip.attributes.address).toMatch(/^(192\.0\.2|198\.51\.100|203\.0\.113)\.(\d{1,3})$/);
    const host = Number(String(eip.attributes.address).split('.')[3]);
    expect(host).toBeGreaterThanOrEqual(1);
    expect(host).toBeLessThanOrEqual(254);
    // a move keeps the address
    expect((await s.resourceOperation('m:1', call({ resourceType: 'elastic-ip', operation: 'move', resourceId: 'eip-1', attributes: { targetType: 'instance', targetId: 'i-1' } }))).attributes).toEqual(eip.attributes);
    const addresses = new Set<unknown>();
    for (let i = 0; i < 20; i++) addresses.add((await s.resourceOperation('e:1', call({ resourceType: 'elastic-ip', resourceId: `eip-${i}` }))).attributes.address);
    expect(addresses.size).toBeGreaterThan(15);

    const vol = await s.resourceOperation('v:1', call({ operation: 'attach', attributes: { instanceId: 'i-1' } }));
    expect(vol.attributes).toEqual({ devicePath: expect.stringMatching(/^\/dev\/disk\/by-id\/virtio-sim-[0-9a-f]{12}$/) });

    const vlan = await s.resourceOperation('l:1', call({ resourceType: 'vlan', resourceId: 'vlan-1' }));
    expect(vlan.attributes.vid).toEqual(expect.any(Number));
    expect(vlan.attributes.vid).toBeGreaterThanOrEqual(2);
    expect(vlan.attributes.vid).toBeLessThanOrEqual(4094);

    const bucket = await s.resourceOperation('b:1', call({ resourceType: 'bucket', resourceId: 'b-1', region: 'AMS', attributes: { name: 'my.logs-2026' } }));
    expect(bucket.attributes).toEqual({ endpoint: 'https://my-logs-2026.ams.objects.sim.example' });

    const fs = await s.resourceOperation('f:1', call({ resourceType: 'file-system', resourceId: 'fs-1', region: 'AMS' }));
    expect(fs.attributes.mountTarget).toMatch(/^fs-[0-9a-f]{12}\.ams\.sim\.example:\/export$/);

    const cluster = await s.resourceOperation('c:1', call({ resourceType: 'cluster', resourceId: 'k-1', region: 'SFO', attributes: { name: 'prod', version: '1.31.1' } }));
    expect(cluster.attributes.endpoint).toMatch(/^https:\/\/[0-9a-f]{12}\.k8s\.sfo\.sim\.example:6443$/);
    const pem = Buffer.from(String(cluster.attributes.caData), 'base64').toString('utf8');
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END CERTIFICATE-----\n$/);
    // A real, self-signed CA certificate, valid now.
    const ca = new X509Certificate(pem);
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(Date.parse(ca.validFrom)).toBeLessThan(Date.now());
    expect(Date.parse(ca.validTo)).toBeGreaterThan(Date.now());
    expect(ca.subject).toContain('CN=kubernetes-ca');
    expect((await instant().resourceOperation('other:1', call({ resourceType: 'cluster', resourceId: 'k-1', region: 'SFO' }))).attributes.caData).toBe(cluster.attributes.caData);
    expect((await s.resourceOperation('c:1', call({ resourceType: 'cluster', resourceId: 'k-2', region: 'SFO' }))).attributes.caData).not.toBe(cluster.attributes.caData);

    const pg = await s.resourceOperation('d:1', call({ resourceType: 'database', resourceId: 'db-1', attributes: { name: 'Orders', engine: 'postgres' } }));
    expect(pg.attributes).toEqual({ host: expect.stringMatching(/^orders-[0-9a-f]{8}\.db\.nyc\.sim\.example$/), port: 5432 });
    expect((await s.resourceOperation('d:1', call({ resourceType: 'database', resourceId: 'db-2', attributes: { name: 'c', engine: 'mysql' } }))).attributes.port).toBe(3306);
    expect((await s.resourceOperation('d:1', call({ resourceType: 'database', resourceId: 'db-3', attributes: { name: 'c', engine: 'redis' } }))).attributes.port).toBe(6379);
  });

  it('succeeds with no attributes for an unknown type, and a delete reports none', async () => {
    const s = instant();
    const odd = await s.resourceOperation('x:1', call({ resourceType: 'wormhole', resourceId: 'w-1' }));
    expect(odd).toEqual({ externalId: expect.stringMatching(/^sim-wormhole-[0-9a-f]{16}$/), attributes: {} });
    expect((await s.resourceOperation('x:1', call({ resourceType: 'firewall', resourceId: 'fw-1', attributes: { rules: [] } }))).attributes).toEqual({});
    expect((await s.resourceOperation('x:1', call({ resourceType: 'cluster', operation: 'delete', resourceId: 'k-1' }))).attributes).toEqual({});
  });

  it('fails the first N attempts of the token, always, or permanently, as the simulate tag says', async () => {
    const s = instant();
    const tags = { simulate: 'fail:2' };
    await expect(s.resourceOperation('job:r0:1', call({ tags }))).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
    await expect(s.resourceOperation('job:r0:2', call({ tags }))).rejects.toThrow(/attempt 2 of 2 failing/);
    await expect(s.resourceOperation('job:r0:3', call({ tags }))).resolves.toHaveProperty('externalId');
    // the decision comes from the token: a fresh process replaying attempt 2 fails again
    await expect(instant().resourceOperation('job:r0:2', call({ tags }))).rejects.toBeInstanceOf(ProviderError);
    await expect(s.resourceOperation('job:r0:3', call({ tags: { simulate: 'fail:always' }, operation: 'attach' }))).rejects.toMatchObject({ retryable: true });
    const permanent = s.resourceOperation('job:r0:1', call({ tags: { simulate: 'fail-permanent' }, resourceType: 'bucket', operation: 'delete', resourceId: 'b-9' }));
    await expect(permanent).rejects.toMatchObject({ retryable: false, message: 'Simulated permanent failure of delete for bucket b-9' });
  });

  it('waits realistic latencies (create slowest), the same for a replayed token, and slow:<ms> overrides them', async () => {
    const waits: number[] = [];
    const s = new SimulatorDriver('provider_publiccloud', { sleep: async (ms) => void waits.push(ms) });
    await s.resourceOperation('a:1', call());
    await s.resourceOperation('a:1', call());
    await s.resourceOperation('b:1', call({ operation: 'attach' }));
    await s.resourceOperation('c:1', call({ operation: 'detach' }));
    await s.resourceOperation('d:1', call({ operation: 'delete' }));
    await s.resourceOperation('e:1', call({ tags: { simulate: 'slow:2500' } }));
    await expect(s.resourceOperation('f:1', call({ tags: { simulate: 'slow:40,fail:1' } }))).rejects.toBeInstanceOf(ProviderError);
    const [create, replay, attach, detach, del, slow, slowFailed] = waits;
    expect(waits).toHaveLength(7);
    expect(create).toBeGreaterThanOrEqual(300);
    expect(create).toBeLessThanOrEqual(800);
    expect(replay).toBe(create);
    for (const w of [attach, detach]) {
      expect(w).toBeGreaterThanOrEqual(150);
      expect(w).toBeLessThanOrEqual(400);
    }
    expect(del).toBeGreaterThanOrEqual(100);
    expect(del).toBeLessThanOrEqual(300);
    expect([slow, slowFailed]).toEqual([2500, 40]);

    const configured: number[] = [];
    const c = new SimulatorDriver('provider_publiccloud', { latencyMs: { create: 90, action: 20, delete: 10 }, sleep: async (ms) => void configured.push(ms) });
    for (const operation of ['create', 'assign', 'move', 'update', 'delete']) await c.resourceOperation('t:1', call({ operation }));
    expect(configured).toEqual([90, 20, 20, 20, 10]);
  });
});

describe('SimulatorDriver versions', () => {
  it('lists Kubernetes versions where the kind has managed Kubernetes', async () => {
    expect(await instant('provider_publiccloud').kubernetesVersions()).toEqual(['1.29.9', '1.30.5', '1.31.1']);
    expect(await instant('provider_multicloud').kubernetesVersions()).toEqual(['1.29.9', '1.30.5', '1.31.1']);
    expect(await instant('provider_baremetal').kubernetesVersions()).toEqual([]);
  });

  it('lists database versions per engine where the kind has managed databases', async () => {
    const s = instant('provider_publiccloud');
    expect(await s.databaseVersions('postgres')).toEqual(['15', '16']);
    expect(await s.databaseVersions('mysql')).toEqual(['8.0', '8.4']);
    expect(await s.databaseVersions('redis')).toEqual(['7.2']);
    expect(await s.databaseVersions('oracle')).toEqual([]);
    expect(await instant('provider_baremetal').databaseVersions('postgres')).toEqual(['15', '16']);
    expect(await instant('provider_multicloud').databaseVersions('postgres')).toEqual([]);
    // callers get a copy, not the catalog itself
    (await s.databaseVersions('postgres')).push('9.6');
    expect(await s.databaseVersions('postgres')).toEqual(['15', '16']);
  });
});
