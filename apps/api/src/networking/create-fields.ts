// Moved to the use cases (usecases/networking/create-fields.ts); this re-export stays only for
// private-networks.routes.ts, whose reservation is being rewritten apart, and goes with that change.
export { createFields } from '../../../../usecases/networking/create-fields';
