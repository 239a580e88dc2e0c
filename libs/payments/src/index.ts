export * from './payment-provider.port';
export * from './payment-providers';
export * from './paystack.driver';
export * from './simulator.driver';
export * from './stripe.driver';
