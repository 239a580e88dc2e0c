import { loadConfig } from '../src/config';

/** The web console's origin (allowed by the gateway's CORS) and the gateway's URL (called by the console, named by its CSP). */
describe('config: the console and gateway origins', () => {
  const originsOf = (env: Record<string, string>) => loadConfig({}, { DATA_DIR: '/tmp/unused', ...env }).console;

  it('defaults to the listening host: the API port for the console, GATEWAY_PORT for the gateway', () => {
    expect(originsOf({ HOST: '127.0.0.1', PORT: '8443', GATEWAY_PORT: '8444' })).toEqual({ origin: 'https://127.0.0.1:8443', gatewayUrl: 'https://127.0.0.1:8444' });
    expect(originsOf({ HOST: '::1', PORT: '8443', GATEWAY_PORT: '8444' })).toEqual({ origin: 'https://[::1]:8443', gatewayUrl: 'https://[::1]:8444' });
  });

  it("follows PUBLIC_URL's host, and GATEWAY_PUBLIC_URL wins for the gateway", () => {
    expect(originsOf({ HOST: '0.0.0.0', PUBLIC_URL: 'https://cloud.example.com/base/', GATEWAY_PORT: '8444' })).toEqual({ origin: 'https://cloud.example.com', gatewayUrl: 'https://cloud.example.com:8444' });
    expect(originsOf({ PUBLIC_URL: 'https://cloud.example.com', GATEWAY_PUBLIC_URL: 'https://llm.example.com' })).toEqual({ origin: 'https://cloud.example.com', gatewayUrl: 'https://llm.example.com' });
  });

  it('names no origin a browser could not reach: a wildcard host or an ephemeral port without a public URL', () => {
    expect(originsOf({ HOST: '0.0.0.0', PORT: '8443' })).toEqual({ origin: undefined, gatewayUrl: undefined });
    expect(originsOf({ HOST: '127.0.0.1', PORT: '0', GATEWAY_PORT: '0' })).toEqual({ origin: undefined, gatewayUrl: undefined });
  });

  it('refuses a gateway URL that is not an https origin', () => {
    for (const bad of ['http://llm.example.com', 'https://llm.example.com/v1', 'https://u:p@llm.example.com', 'not a url']) expect(() => loadConfig({}, { GATEWAY_PUBLIC_URL: bad })).toThrow(/GATEWAY_PUBLIC_URL/);
  });
});
