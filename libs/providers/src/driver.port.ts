/**
 * Provider drivers: the only place that talks to a (real or simulated) cloud provider. Every
 * mutating call carries an idempotency token (one per job attempt, `<jobId>:<attempt>`): a driver
 * that sees the same token again returns the first outcome instead of acting twice.
 */
import type { CatalogSnapshot } from './catalog.types';

export type { ProviderKind } from '../../domain/providers/events';
import type { ProviderKind } from '../../domain/providers/events';

export interface InstanceSpec {
  instanceId: string;
  name: string;
  region: string;
  instanceType: string;
  image: string | null;
  diskSizeGb: number | null;
  workerCount: number;
  spot: boolean;
  sshKeys: string[];
  accelerators: string | null;
  ports: number[];
  /** Tags may carry simulator directives, e.g. `simulate=fail:2` (see the README). */
  tags: Record<string, string>;
}

export interface ProvisionedInstance {
  externalId: string;
  hostname: string;
  ipv4: string;
  ipv6: string | null;
  vcpus: number;
  ramMb: number;
  diskGb: number;
  gpus: number;
  gpuType: string | null;
  sshUser: string;
  sshPort: number;
}

export type InstanceAction = 'start' | 'stop' | 'restart' | 'reinstall' | 'rescue' | 'terminate';
export type LiveStatus = 'active' | 'stopped' | 'terminated' | 'error' | 'unknown';

export interface UtilizationSample {
  timestamp: string;
  cpuPercent: number;
  memoryPercent: number;
  gpuPercent: number | null;
  networkInMbps: number;
  networkOutMbps: number;
  diskReadMbps: number;
  diskWriteMbps: number;
}

/**
 * One operation on a provider resource other than compute (DECISIONS 14): `resourceType` is the
 * job type's resource (`elastic-ip`, `vlan`, `firewall`, `private-network`, `network-database`,
 * `interconnection`, `volume`, `file-system`, `bucket`, `cluster`, `database`), `operation` its
 * operation (`create`, `attach`, `detach`, `assign`, `move`, `update`, `delete`, …).
 */
export interface ResourceCall {
  resourceType: string;
  operation: string;
  /** The API's id of the resource; the provider's external id derives from it. */
  resourceId: string;
  region: string | null;
  /** May carry simulator directives, as on instances (`simulate=fail:2`). */
  tags: Record<string, string>;
  /** The resource's fields the operation needs (name, sizeGb, cidr, rules, engine, target, …). */
  attributes: Record<string, unknown>;
}

/** What the provider reports back: its id of the resource and what it assigned (address, endpoint, …). */
export interface ResourceResult {
  externalId: string;
  attributes: Record<string, unknown>;
}

/**
 * A driver failure. `retryable` false marks an error the provider calls permanent; it is reported
 * with the job's error, but the job still makes its 3 attempts in all (spec §3.4).
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface ProviderDriver {
  readonly kind: ProviderKind;
  createInstance(token: string, spec: InstanceSpec): Promise<ProvisionedInstance>;
  instanceAction(token: string, externalId: string, action: InstanceAction, spec: InstanceSpec): Promise<{ status: LiveStatus }>;
  deleteInstance(token: string, externalId: string, spec: InstanceSpec): Promise<void>;
  /** What the provider reports now; `tags` are the instance's (the simulator reads its directives there). */
  liveStatus(externalId: string, tags?: Record<string, string>): Promise<LiveStatus>;
  metrics(externalId: string, now: Date, points: number): Promise<UtilizationSample[]>;
  /** The provider's current offer (plans, regions, OS, instance types, images, availability); optional for drivers without one. */
  fetchCatalog?(): Promise<CatalogSnapshot>;
  /** Creates, changes or deletes a non-compute resource; idempotent per token like the instance calls. */
  resourceOperation(token: string, call: ResourceCall): Promise<ResourceResult>;
  /** Kubernetes versions a new cluster may run (empty when the provider has no managed Kubernetes). */
  kubernetesVersions?(): Promise<string[]>;
  /** Versions of a managed database engine (`postgres`, `mysql`, `redis`); empty for an engine not offered. */
  databaseVersions?(engine: string): Promise<string[]>;
  /**
   * The URL of a console on a running machine (DECISIONS 23): the provider's console proxy admits
   * `token` (one-time, made by the API) until `expiresAt`. The URL carries the token; never log it.
   */
  consoleUrl?(externalId: string, request: ConsoleRequest): Promise<string>;
}

/** A console session's request to the provider: VNC for a virtual machine, IPMI serial-over-LAN for bare metal. */
export interface ConsoleRequest {
  protocol: 'vnc' | 'ipmi-sol';
  token: string;
  expiresAt: string;
}
