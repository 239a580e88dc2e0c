import { DriverRegistry } from '../src/driver-registry';
import { SimulatorDriver } from '../../providers/src/simulator/simulator-driver';

describe('DriverRegistry (DECISIONS 21: test mode always uses the simulators)', () => {
  it('gives live mode the driver registered for a kind, and test mode the simulator whatever is registered', () => {
    const registry = new DriverRegistry('zero');
    const registered = new SimulatorDriver('aws', {});
    registry.register('aws', registered);
    expect(registry.get('aws', 'live')).toBe(registered);
    expect(registry.get('aws')).toBe(registered);
    const test = registry.get('aws', 'test');
    expect(test).not.toBe(registered);
    expect(test).toBeInstanceOf(SimulatorDriver);
    expect(registry.get('aws', 'test')).toBe(test);
  });

  it('gives both modes the simulator of a kind without a registered driver', () => {
    const registry = new DriverRegistry('zero');
    expect(registry.get('gcp', 'live')).toBe(registry.get('gcp', 'test'));
    expect(registry.get('gcp', 'live')).toBeInstanceOf(SimulatorDriver);
  });
});
