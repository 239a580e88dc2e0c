import { DriverRegistry } from '../src/driver-registry';
import { SimulatorDriver } from '../../providers/src/simulator/simulator-driver';

describe('DriverRegistry (DECISIONS 21: test mode always uses the simulators)', () => {
  it('gives live mode the driver registered for a kind, and test mode the simulator whatever is registered', () => {
    const registry = new DriverRegistry('zero');
    const registered = new SimulatorDriver('provider_publiccloud', {});
    registry.register('provider_publiccloud', registered);
    expect(registry.get('provider_publiccloud', 'live')).toBe(registered);
    expect(registry.get('provider_publiccloud')).toBe(registered);
    const test = registry.get('provider_publiccloud', 'test');
    expect(test).not.toBe(registered);
    expect(test).toBeInstanceOf(SimulatorDriver);
    expect(registry.get('provider_publiccloud', 'test')).toBe(test);
  });

  it('gives both modes the simulator of a kind without a registered driver', () => {
    const registry = new DriverRegistry('zero');
    expect(registry.get('provider_baremetal', 'live')).toBe(registry.get('provider_baremetal', 'test'));
    expect(registry.get('provider_baremetal', 'live')).toBeInstanceOf(SimulatorDriver);
  });
});
