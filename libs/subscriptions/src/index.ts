export * from './checkpoint-store';
export * from './subscription-runner';
export * from './document-projection';
export * from './projection-engine';
