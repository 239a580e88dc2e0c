export const PLATFORM = Symbol('PLATFORM');
/** The runtime as use cases see it (libs/runtime/src/ports.ts): each handler types it down to what it uses. */
export const PORTS = Symbol('PORTS');
export const REDIS_PING = Symbol('REDIS_PING');
export const IDENTITY = Symbol('IDENTITY');
