import { createHash } from 'node:crypto';
import { PROVIDER_CAPABILITIES } from '../../../domain/providers/capabilities';
import type { CatalogSnapshot } from '../catalog.types';
import {
  ProviderError,
  type ConsoleRequest,
  type InstanceAction,
  type InstanceSpec,
  type LiveStatus,
  type ProviderDriver,
  type ProviderKind,
  type ProvisionedInstance,
  type ResourceCall,
  type ResourceResult,
  type UtilizationSample,
} from '../driver.port';
import { SEED_CATALOG } from './catalog-data';
import { clusterCaCertificate } from './cluster-ca';

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

/** What the simulated providers offer for new clusters and managed databases (the API validates against these). */
export const SIMULATED_KUBERNETES_VERSIONS: readonly string[] = ['1.29.9', '1.30.5', '1.31.1'];
export const SIMULATED_DATABASE_VERSIONS: Readonly<Record<string, readonly string[]>> = { postgres: ['15', '16'], mysql: ['8.0', '8.4'], redis: ['7.2'] };
const DATABASE_PORTS: Record<string, number> = { postgres: 5432, mysql: 3306, redis: 6379 };

/** Documentation address ranges (RFC 5737): plausible public IPv4 addresses that route nowhere. */
const DOCUMENTATION_NETS = ['192.0.2', '198.51.100', '203.0.113'];

/** A DNS label from a name (or the fallback when nothing usable is left). */
const label = (value: unknown, fallback: string) =>
  (typeof value === 'string' ? value : '').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || fallback;


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
    await this.simulate('create', token, spec.tags, spec.instanceId);
    const externalId = this.externalIdFor(spec.instanceId);
    this.status.set(externalId, 'active');
    return this.describe(externalId, spec);
  }

  async instanceAction(token: string, externalId: string, action: InstanceAction, spec: InstanceSpec): Promise<{ status: LiveStatus }> {
    await this.simulate(action, token, spec.tags, spec.instanceId);
    const status: LiveStatus = action === 'stop' ? 'stopped' : action === 'terminate' ? 'terminated' : 'active';
    this.status.set(externalId, status);
    return { status };
  }

  async deleteInstance(token: string, externalId: string, spec: InstanceSpec): Promise<void> {
    await this.simulate('delete', token, spec.tags, spec.instanceId);
    this.status.set(externalId, 'terminated');
  }

  /** Deterministic external id of a non-compute resource at this provider. */
  resourceExternalIdFor(resourceType: string, resourceId: string): string {
    return `sim-${label(resourceType, 'resource')}-${hash(this.kind, resourceType, resourceId).toString('hex').slice(0, 16)}`;
  }

  /**
   * Any operation on a networking, storage, Kubernetes or database resource: same latencies and
   * `simulate` directives as instances; the result derives from the resource (never from state), so
   * the same token (or a retry after a crash) gets the same answer. A delete reports no attributes.
   */
  async resourceOperation(token: string, call: ResourceCall): Promise<ResourceResult> {
    await this.simulate(call.operation, token, call.tags, `${call.resourceType} ${call.resourceId}`);
    const externalId = this.resourceExternalIdFor(call.resourceType, call.resourceId);
    if (call.operation === 'delete') return { externalId, attributes: {} };
    const attributes = await this.describeResource(call);
    // A stopped model serves nothing: its endpoint is gone until it starts again.
    if (call.resourceType === 'model' && call.operation === 'stop') attributes.endpointUrl = null;
    return { externalId, attributes };
  }

  async kubernetesVersions(): Promise<string[]> {
    return PROVIDER_CAPABILITIES[this.kind].includes('kubernetes') ? [...SIMULATED_KUBERNETES_VERSIONS] : [];
  }

  async databaseVersions(engine: string): Promise<string[]> {
    if (!PROVIDER_CAPABILITIES[this.kind].includes('databases')) return [];
    return [...(SIMULATED_DATABASE_VERSIONS[engine] ?? [])];
  }

  /** A simulated console proxy's URL; the machine must exist and run (else a ProviderError, as a provider would answer). */
  async consoleUrl(externalId: string, request: ConsoleRequest): Promise<string> {
    if ((this.status.get(externalId) ?? 'active') !== 'active') throw new ProviderError(`Machine ${externalId} is not running`, false);
    return `https://console.${this.kind.replace(/_/g, '-')}.simulator.invalid/${request.protocol}/${encodeURIComponent(externalId)}?token=${encodeURIComponent(request.token)}`;
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

  private async simulate(operation: string, token: string, tags: Record<string, string> | undefined, subject: string): Promise<void> {
    const directives = parseSimulateTag(tags?.simulate);
    const attempt = attemptOf(token);
    const slow = directives.find((d): d is Extract<SimulateDirective, { kind: 'slow' }> => d.kind === 'slow');
    const range = operation === 'create' || operation === 'deploy' ? this.latency.create : operation === 'delete' ? this.latency.delete : this.latency.action;
    await this.sleep(slow ? slow.ms : this.jitter(range, token, operation));
    for (const d of directives) {
      if (d.kind === 'fail-permanent') throw new ProviderError(`Simulated permanent failure of ${operation} for ${subject}`, false);
      if (d.kind === 'fail-always') throw new ProviderError(`Simulated failure of ${operation} for ${subject} (attempt ${attempt}, fail:always)`);
      if (d.kind === 'fail' && attempt <= d.attempts) throw new ProviderError(`Simulated failure of ${operation} for ${subject} (attempt ${attempt} of ${d.attempts} failing)`);
    }
  }

  private jitter(range: Latency, token: string, operation: string): number {
    if (typeof range === 'number') return range;
    const [min, max] = range;
    if (max <= min) return min;
    return min + (hash(this.seed, token, operation).readUInt32BE(0) % (max - min + 1));
  }

  /** What the provider assigned to the resource, per type; an unknown type has nothing to report. */
  private async describeResource(call: ResourceCall): Promise<Record<string, unknown>> {
    const h = hash(this.kind, call.resourceType, call.resourceId);
    const hex = h.toString('hex');
    const region = label(call.region, 'global');
    const name = label(call.attributes.name, call.resourceType);
    switch (call.resourceType) {
      case 'elastic-ip':
        return { address: `${DOCUMENTATION_NETS[h[0] % DOCUMENTATION_NETS.length]}.${1 + (h[1] % 254)}` };
      case 'vlan':
        // 802.1Q ids 2-4094 (1 is the default VLAN, 4095 reserved).
        return { vid: 2 + (h.readUInt16BE(0) % 4093) };
      case 'volume':
        return { devicePath: `/dev/disk/by-id/virtio-sim-${hex.slice(0, 12)}` };
      case 'file-system':
        return { mountTarget: `fs-${hex.slice(0, 12)}.${region}.sim.example:/export` };
      case 'bucket':
        return { endpoint: `https://${label(call.attributes.name, hex.slice(0, 12))}.${region}.objects.sim.example` };
      case 'cluster':
        return {
          endpoint: `https://${hex.slice(0, 12)}.k8s.${region}.sim.example:6443`,
          caData: Buffer.from(await clusterCaCertificate(h, `sim cluster ${hex.slice(0, 12)}`)).toString('base64'),
        };
      case 'model':
        // The multi-cloud provider's service for the model, and the URL it serves at.
        return { multicloudServiceName: `svc-${name}-${hex.slice(0, 8)}`, endpointUrl: `https://${name}-${hex.slice(0, 12)}.models.${region}.sim.example` };
      case 'database': {
        const engine = typeof call.attributes.engine === 'string' ? call.attributes.engine : 'postgres';
        return { host: `${name}-${hex.slice(0, 8)}.db.${region}.sim.example`, port: DATABASE_PORTS[engine] ?? 5432 };
      }
      default:
        return {};
    }
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
