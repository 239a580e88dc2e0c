import type { Mode } from '../../domain/shared/scope';
import type { ProviderDriver, ProviderKind } from '../../providers/src/driver.port';
import { SimulatorDriver, ZERO_LATENCY } from '../../providers/src/simulator/simulator-driver';

/**
 * One driver per provider kind. Live mode uses the driver registered for the kind (the simulator
 * until a real provider driver is registered); test mode always uses the simulator (DECISIONS 21), so
 * a test key can never reach a real cloud whatever drivers a deployment registers.
 */
export class DriverRegistry {
  private readonly simulators = new Map<string, ProviderDriver>();
  private readonly live = new Map<string, ProviderDriver>();

  constructor(private readonly latency: 'realistic' | 'zero') {}

  /** A real driver for live mode. */
  register(kind: ProviderKind, driver: ProviderDriver): void {
    this.live.set(kind, driver);
  }

  get(kind: string, mode: Mode = 'live'): ProviderDriver {
    return (mode === 'live' ? this.live.get(kind) : undefined) ?? this.simulator(kind);
  }

  private simulator(kind: string): ProviderDriver {
    let d = this.simulators.get(kind);
    if (!d) {
      d = new SimulatorDriver(kind as ProviderKind, this.latency === 'zero' ? { latencyMs: ZERO_LATENCY } : {});
      this.simulators.set(kind, d);
    }
    return d;
  }
}
