import type { ProviderDriver, ProviderKind } from '../../providers/src/driver.port';
import { SimulatorDriver, ZERO_LATENCY } from '../../providers/src/simulator/simulator-driver';

/** One driver per provider kind; the simulator until real provider drivers are configured. */
export class DriverRegistry {
  private readonly drivers = new Map<string, ProviderDriver>();

  constructor(private readonly latency: 'realistic' | 'zero') {}

  get(kind: string): ProviderDriver {
    let d = this.drivers.get(kind);
    if (!d) {
      d = new SimulatorDriver(kind as ProviderKind, this.latency === 'zero' ? { latencyMs: ZERO_LATENCY } : {});
      this.drivers.set(kind, d);
    }
    return d;
  }
}
