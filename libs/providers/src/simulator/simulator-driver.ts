import { createHash } from 'node:crypto';
import type { CatalogSnapshot } from '../catalog.types';
import {
  ProviderError,
  type InstanceAction,
  type InstanceSpec,
  type LiveStatus,
  type ProviderDriver,
  type ProviderKind,
  type ProvisionedInstance,
  type UtilizationSample,
} from '../driver.port';
import { SEED_CATALOG } from './catalog-data';

/** A latency: fixed milliseconds, or a `[min, max]` range (jitter derived from the token). */
export type Latency = number | [number, number];

export interface SimulatorOptions {
  latencyMs?: { create?: Latency; action?: Latency; delete?: Latency };
  /** Varies jitter and metrics between simulators; the same seed gives the same behaviour. */
  seed?: string;
  /** Replaceable for tests; defaults to setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

export const REALISTIC_LATENCY = { create: [300, 800] as Latency, action: [150, 400] as Latency, delete: [100, 300] as Latency };
export const ZERO_LATENCY = { create: 0 as Latency, action: 0 as Latency, delete: 0 as Latency };

export type SimulateDirective =
  | { kind: 'fail'; attempts: number }
  | { kind: 'fail-always' }
  | { kind: 'fail-permanent' }
  | { kind: 'slow'; ms: number }
  | { kind: 'drift'; status: 'stopped' | 'terminated' | 'error' };

/** Parses the `simulate` tag: comma-separated `fail:N`, `fail:always`, `fail-permanent`, `slow:<ms>`, `drift:<status>`. */
export function parseSimulateTag(value: string | undefined): SimulateDirective[] {
  if (!value) return [];
  const out: SimulateDirective[] = [];
  for (const part of value.split(',').map((s) => s.trim().toLowerCase())) {
    let m: RegExpExecArray | null;
    if (part === 'fail:always') out.push({ kind: 'fail-always' });
    else if (part === 'fail-permanent' || part === 'fail:permanent') out.push({ kind: 'fail-permanent' });
    else if ((m = /^fail:(\d{1,4})$/.exec(part))) out.push({ kind: 'fail', attempts: Number(m[1]) });
    else if ((m = /^slow:(\d{1,6})$/.exec(part))) out.push({ kind: 'slow', ms: Number(m[1]) });
    else if ((m = /^drift:(stopped|terminated|error)$/.exec(part))) out.push({ kind: 'drift', status: m[1] as 'stopped' | 'terminated' | 'error' });
  }
  return out;
}

/** The attempt number carried by an idempotency token `<jobId>:<attempt>` (1 when absent). */
export function attemptOf(token: string): number {
  const m = /:(\d+)$/.exec(token);
  return m ? Math.max(1, Number(m[1])) : 1;
}

const hash = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest();

/**
 * The default provider driver: no network, realistic latencies, a seeded catalog, and failure
 * injection that depends only on the spec's tags and the token, so a restarted process makes the
 * same decisions. Outcomes derive from the instance id, so a repeated call never "creates twice".
 */
export class SimulatorDriver implements ProviderDriver {
  private readonly latency: Required<NonNullable<SimulatorOptions['latencyMs']>>;
  private readonly seed: string;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly status = new Map<string, LiveStatus>();

  constructor(
    readonly kind: ProviderKind,
    options: SimulatorOptions = {},
  ) {
    this.latency = { ...REALISTIC_LATENCY, ...options.latencyMs };
    this.seed = options.seed ?? 'simulator';
    this.sleep = options.sleep ?? ((ms) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve()));
  }

  /** A simulator that answers at once (tests, benches). */
  static instant(kind: ProviderKind, seed?: string): SimulatorDriver {
    return new SimulatorDriver(kind, { latencyMs: ZERO_LATENCY, seed });
  }

  /** Deterministic external id of an instance at this provider. */
  externalIdFor(instanceId: string): string {
    return `sim-${hash(this.kind, instanceId).toString('hex').slice(0, 20)}`;
  }

  async createInstance(token: string, spec: InstanceSpec): Promise<ProvisionedInstance> {
    await this.simulate('create', token, spec);
    const externalId = this.externalIdFor(spec.instanceId);
    this.status.set(externalId, 'active');
    return this.describe(externalId, spec);
  }

  async instanceAction(token: string, externalId: string, action: InstanceAction, spec: InstanceSpec): Promise<{ status: LiveStatus }> {
    await this.simulate(action, token, spec);
    const status: LiveStatus = action === 'stop' ? 'stopped' : action === 'terminate' ? 'terminated' : 'active';
    this.status.set(externalId, status);
    return { status };
  }

  async deleteInstance(token: string, externalId: string, spec: InstanceSpec): Promise<void> {
    await this.simulate('delete', token, spec);
    this.status.set(externalId, 'terminated');
  }

  async liveStatus(externalId: string, tags?: Record<string, string>): Promise<LiveStatus> {
    const known = this.status.get(externalId) ?? 'active';
    // `drift:<status>`: a running instance that the provider reports otherwise (stopped or lost outside the API).
    const drift = parseSimulateTag(tags?.simulate).find((d): d is Extract<SimulateDirective, { kind: 'drift' }> => d.kind === 'drift');
    return drift && known === 'active' ? drift.status : known;
  }

  async metrics(externalId: string, now: Date, points: number): Promise<UtilizationSample[]> {
    const base = hash(this.seed, externalId);
    const hasGpu = base[7] % 3 === 0;
    const out: UtilizationSample[] = [];
    const end = Math.floor(now.getTime() / 60_000) * 60_000;
    for (let i = points - 1; i >= 0; i--) {
      const t = end - i * 60_000;
      const minute = t / 60_000;
      const noise = (k: number) => hash(this.seed, externalId, String(minute), String(k))[0] / 255;
      // A daily cycle plus per-minute noise keeps charts plausible and reproducible.
      const daily = 0.5 + 0.5 * Math.sin((2 * Math.PI * (minute % 1440)) / 1440 + base[0]);
      const round = (v: number) => Math.round(v * 10) / 10;
      const pct = (v: number) => round(Math.min(100, Math.max(0, v)));
      out.push({
        timestamp: new Date(t).toISOString(),
        cpuPercent: pct(10 + (base[1] % 40) * daily + 15 * noise(1)),
        memoryPercent: pct(30 + (base[2] % 30) + 10 * noise(2)),
        gpuPercent: hasGpu ? pct(20 + 60 * daily * noise(3)) : null,
        networkInMbps: round(5 + 200 * daily * noise(4)),
        networkOutMbps: round(2 + 120 * daily * noise(5)),
        diskReadMbps: round(1 + 80 * noise(6)),
        diskWriteMbps: round(1 + 50 * noise(7)),
      });
    }
    return out;
  }

  async fetchCatalog(): Promise<CatalogSnapshot> {
    return structuredClone(SEED_CATALOG[this.kind]);
  }

  private async simulate(operation: string, token: string, spec: InstanceSpec): Promise<void> {
    const directives = parseSimulateTag(spec.tags?.simulate);
    const attempt = attemptOf(token);
    const slow = directives.find((d): d is Extract<SimulateDirective, { kind: 'slow' }> => d.kind === 'slow');
    const range = operation === 'create' ? this.latency.create : operation === 'delete' ? this.latency.delete : this.latency.action;
    await this.sleep(slow ? slow.ms : this.jitter(range, token, operation));
    for (const d of directives) {
      if (d.kind === 'fail-permanent') throw new ProviderError(`Simulated permanent failure of ${operation} for ${spec.instanceId}`, false);
      if (d.kind === 'fail-always') throw new ProviderError(`Simulated failure of ${operation} for ${spec.instanceId} (attempt ${attempt}, fail:always)`);
      if (d.kind === 'fail' && attempt <= d.attempts) throw new ProviderError(`Simulated failure of ${operation} for ${spec.instanceId} (attempt ${attempt} of ${d.attempts} failing)`);
    }
  }

  private jitter(range: Latency, token: string, operation: string): number {
    if (typeof range === 'number') return range;
    const [min, max] = range;
    if (max <= min) return min;
    return min + (hash(this.seed, token, operation).readUInt32BE(0) % (max - min + 1));
  }

  private describe(externalId: string, spec: InstanceSpec): ProvisionedInstance {
    const h = hash(this.kind, spec.instanceId);
    const catalog = SEED_CATALOG[this.kind];
    const type = catalog.instanceTypes.find((t) => t.slug === spec.instanceType || t.id === spec.instanceType);
    const host = spec.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'instance';
    return {
      externalId,
      hostname: `${host}.${spec.region.toLowerCase()}.sim.internal`,
      // 100.64.0.0/10 (shared address space): plausible, never routable to a real host.
      ipv4: `100.${64 + (h[0] % 64)}.${h[1]}.${1 + (h[2] % 254)}`,
      ipv6: this.kind === 'provider_baremetal' ? null : `2001:db8:${h.readUInt16BE(3).toString(16)}:${h.readUInt16BE(5).toString(16)}::${h.readUInt16BE(7).toString(16)}`,
      vcpus: type?.vcpus ?? 2,
      ramMb: (type?.memoryGb ?? 4) * 1024,
      diskGb: spec.diskSizeGb ?? type?.diskGb ?? 80,
      gpus: type?.gpuCount ?? 0,
      gpuType: type?.gpuType ?? null,
      sshUser: spec.image?.includes('windows') ? 'Administrator' : 'root',
      sshPort: 22,
    };
  }
}
