/** The DI token of the runtime's ports (./ports.ts), provided once by each app's root module. */
export const PORTS = Symbol('PORTS');
