import { ProviderError, type InstanceSpec } from '../src/driver.port';
import { SimulatorDriver, attemptOf, parseSimulateTag } from '../src/simulator/simulator-driver';
import { SEED_CATALOG } from '../src/simulator/catalog-data';

const spec = (tags: Record<string, string> = {}, instanceId = 'inst-1'): InstanceSpec => ({
  instanceId, name: 'Web 1', region: 'NYC', instanceType: 'c3-medium-x86', image: 'ubuntu_24_04_x64_lts',
  diskSizeGb: null, workerCount: 1, spot: false, sshKeys: [], accelerators: null, ports: [22], tags,
});

describe('SimulatorDriver', () => {
  const sim = () => SimulatorDriver.instant('provider_baremetal');

  it('parses simulate directives and attempts from tokens', () => {
    expect(parseSimulateTag('fail:2, slow:50')).toEqual([{ kind: 'fail', attempts: 2 }, { kind: 'slow', ms: 50 }]);
    expect(parseSimulateTag('fail:always')).toEqual([{ kind: 'fail-always' }]);
    expect(parseSimulateTag('fail-permanent')).toEqual([{ kind: 'fail-permanent' }]);
    expect(parseSimulateTag('nonsense')).toEqual([]);
    expect(parseSimulateTag('drift:stopped')).toEqual([{ kind: 'drift', status: 'stopped' }]);
    expect(parseSimulateTag('drift:active')).toEqual([]);
    expect(attemptOf('job-1:3')).toBe(3);
    expect(attemptOf('job-1')).toBe(1);
  });

  it('creates idempotently: the same instance gives the same external id and shape, from any process', async () => {
    const a = await sim().createInstance('job-1:1', spec());
    const b = await sim().createInstance('job-1:2', spec());
    expect(a).toEqual(b);
    expect(a.externalId).toMatch(/^sim-[0-9a-f]{20}$/);
    expect(a).toMatchObject({ vcpus: 24, ramMb: 64 * 1024, diskGb: 960, gpus: 0, hostname: 'web-1.nyc.sim.internal', ipv6: null });
    expect((await sim().createInstance('job-2:1', spec({}, 'inst-2'))).externalId).not.toBe(a.externalId);
  });

  it('fails the first N attempts (from the token, not a counter), always, or permanently', async () => {
    const s = sim();
    await expect(s.createInstance('job:1', spec({ simulate: 'fail:2' }))).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
    await expect(s.createInstance('job:2', spec({ simulate: 'fail:2' }))).rejects.toBeInstanceOf(ProviderError);
    await expect(s.createInstance('job:3', spec({ simulate: 'fail:2' }))).resolves.toHaveProperty('externalId');
    // a fresh process asked for attempt 2 again fails again: no in-memory state decides it
    await expect(sim().createInstance('job:2', spec({ simulate: 'fail:2' }))).rejects.toBeInstanceOf(ProviderError);
    await expect(s.createInstance('job:9', spec({ simulate: 'fail:always' }))).rejects.toMatchObject({ retryable: true });
    await expect(s.deleteInstance('job:1', 'sim-x', spec({ simulate: 'fail-permanent' }))).rejects.toMatchObject({ retryable: false });
  });

  it('tracks live status through actions, falling back to active', async () => {
    const s = sim();
    const { externalId } = await s.createInstance('j:1', spec());
    expect(await s.liveStatus(externalId)).toBe('active');
    expect(await s.instanceAction('k:1', externalId, 'stop', spec())).toEqual({ status: 'stopped' });
    expect(await s.liveStatus(externalId)).toBe('stopped');
    await s.deleteInstance('d:1', externalId, spec());
    expect(await s.liveStatus(externalId)).toBe('terminated');
    expect(await s.liveStatus('sim-unknown')).toBe('active');
  });

  it('reports a running instance tagged drift:<status> in that status, and a deleted one terminated', async () => {
    const s = sim();
    const tags = { simulate: 'drift:error' };
    const { externalId } = await s.createInstance('j:1', spec(tags));
    expect(await s.liveStatus(externalId, tags)).toBe('error');
    expect(await s.liveStatus(externalId)).toBe('active');
    await s.deleteInstance('d:1', externalId, spec(tags));
    expect(await s.liveStatus(externalId, tags)).toBe('terminated');
  });

  it('waits realistic, deterministic latencies, and slow:<ms> overrides them', async () => {
    const waits: number[] = [];
    const s = new SimulatorDriver('provider_multicloud', { sleep: async (ms) => void waits.push(ms) });
    await s.createInstance('a:1', spec());
    await s.createInstance('a:1', spec());
    await s.instanceAction('b:1', 'x', 'restart', spec());
    await s.deleteInstance('d:1', 'x', spec());
    await s.createInstance('c:1', spec({ simulate: 'slow:1234' }));
    expect(waits).toHaveLength(5);
    expect(waits[0]).toBeGreaterThanOrEqual(300);
    expect(waits[0]).toBeLessThanOrEqual(800);
    expect(waits[1]).toBe(waits[0]);
    expect(waits[2]).toBeGreaterThanOrEqual(150);
    expect(waits[2]).toBeLessThanOrEqual(400);
    expect(waits[3]).toBeGreaterThanOrEqual(100);
    expect(waits[3]).toBeLessThanOrEqual(300);
    expect(waits[4]).toBe(1234);
  });

  it('waits the configured latency before answering, and before a simulated failure', async () => {
    const waits: number[] = [];
    const s = new SimulatorDriver('provider_multicloud', { latencyMs: { create: 30, action: [5, 5], delete: 0 }, sleep: async (ms) => void waits.push(ms) });
    await s.createInstance('z:1', spec());
    await s.instanceAction('z:1', 'x', 'stop', spec());
    await s.deleteInstance('z:1', 'x', spec());
    await expect(s.createInstance('y:1', spec({ simulate: 'fail:1' }))).rejects.toBeInstanceOf(ProviderError);
    expect(waits).toEqual([30, 5, 0, 30]);
  });

  it('by default sleeps on a timer: the answer comes only once the latency has passed', async () => {
    jest.useFakeTimers();
    try {
      let answered = false;
      const pending = new SimulatorDriver('provider_multicloud', { latencyMs: { create: 30 } }).createInstance('z:1', spec()).then(() => (answered = true));
      await jest.advanceTimersByTimeAsync(29);
      expect(answered).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await pending;
      expect(answered).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('returns plausible, reproducible metrics and the seeded catalog', async () => {
    const now = new Date('2026-01-01T12:00:30Z');
    const m = await sim().metrics('sim-abc', now, 60);
    expect(m).toHaveLength(60);
    expect(m[59].timestamp).toBe('2026-01-01T12:00:00.000Z');
    for (const s of m) {
      expect(s.cpuPercent).toBeGreaterThanOrEqual(0);
      expect(s.cpuPercent).toBeLessThanOrEqual(100);
      expect(s.memoryPercent).toBeLessThanOrEqual(100);
    }
    expect(await sim().metrics('sim-abc', now, 60)).toEqual(m);
    const cat = await sim().fetchCatalog();
    expect(cat).toEqual(SEED_CATALOG.provider_baremetal);
    for (const p of cat.plans) {
      expect(Number.isInteger(p.pricing.USD.hourlyCents) && Number.isInteger(p.pricing.NGN.monthlyCents)).toBe(true);
      for (const r of p.regions) expect(cat.regions.map((x) => x.slug)).toContain(r);
    }
  });
});
