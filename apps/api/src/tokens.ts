export const PLATFORM = Symbol('PLATFORM');
export const REDIS_PING = Symbol('REDIS_PING');
export const IDENTITY = Symbol('IDENTITY');
