export * from './simulator-driver';
export * from './catalog-data';
