export const PLATFORM = Symbol('PLATFORM');
/** The runtime as use cases see it (libs/runtime/src/ports.ts): each handler types it down to what it uses. */
export { IDENTITY, OPERATOR, PERMISSIONS, PORTS } from '../../../libs/runtime/src/ports-token';
export const REDIS_PING = Symbol('REDIS_PING');
