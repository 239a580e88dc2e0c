import { Resolver as AresResolver } from 'node:dns/promises';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { isIP } from 'node:net';

export interface NameResolverOptions {
  /** DNS servers (`ip` or `ip:port`); unset: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** The most a lookup may take, waiting for a slot included; then it fails with code ETIMEOUT. */
  timeoutMs: number;
  /** Lookups in flight at once; the others wait (inside their deadline). */
  maxConcurrent: number;
}

/** Node's lookup callback shape (what an http.Agent's `lookup` and EndpointSender take). */
export type LookupCallback = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const failure = (code: string, message: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

/**
 * Name lookups with a bound (DECISIONS 10; issue 24). `dns.lookup` runs getaddrinfo on libuv's four
 * threads, shared by everything in the process and with no timeout: a few names that never answer
 * held them, and a request's lookup waited behind the deliveries'. This asks DNS directly through
 * c-ares (`dns.promises.Resolver`: its own sockets, no thread pool), with a deadline per lookup and a
 * cap on lookups in flight; each user holds its own instance (request paths one, deliveries another),
 * so one cannot starve the other. IP literals need no lookup; `localhost` names are loopback (RFC
 * 6761); the hosts file is not read (webhook targets are public names).
 */
export class NameResolver {
  private readonly resolver: AresResolver;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: NameResolverOptions) {
    this.resolver = new AresResolver({ timeout: options.timeoutMs, tries: 1 });
    if (options.servers?.length) this.resolver.setServers([...options.servers]);
  }

  /** The name's IPv4 and IPv6 addresses; fails with ENOTFOUND (none), or ETIMEOUT past the deadline. */
  lookup(hostname: string): Promise<LookupAddress[]> {
    const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    const family = isIP(host);
    if (family) return Promise.resolve([{ address: host, family }]);
    if (host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost')) return Promise.resolve([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(failure('ETIMEOUT', `${host} did not resolve within ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
    });
    const query = this.slot().then(async (release) => {
      try {
        if (expired) throw failure('ETIMEOUT', 'expired while waiting');
        const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
        const addresses = [
          ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
          ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
        ];
        if (addresses.length > 0) return addresses;
        const reason = (v4.status === 'rejected' ? v4.reason : null) as NodeJS.ErrnoException | null;
        throw failure(reason?.code === 'ETIMEOUT' ? 'ETIMEOUT' : 'ENOTFOUND', `${host} did not resolve (${reason?.code ?? 'no address'})`);
      } finally {
        release();
      }
    });
    query.catch(() => undefined); // settled after the deadline: nobody is listening any more
    return Promise.race([query, deadline]).finally(() => clearTimeout(timer));
  }

  /** The lookup in Node's callback shape. */
  readonly callback: LookupCallback = (hostname, _options, callback) => {
    this.lookup(hostname).then((a) => callback(null, a), (e: NodeJS.ErrnoException) => callback(e, []));
  };

  private slot(): Promise<() => void> {
    const release = () => {
      this.active -= 1;
      this.waiting.shift()?.();
    };
    if (this.active < this.options.maxConcurrent) {
      this.active += 1;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => this.waiting.push(() => {
      this.active += 1;
      resolve(release);
    }));
  }
}

const requestResolvers = new WeakMap<object, NameResolver>();

/**
 * The resolver of request paths (webhook target checks, endpoint tests), one per configuration: a
 * name that does not answer within `timeoutMs` counts as not resolving yet (DECISIONS 10).
 */
export function requestPathResolver(config: { webhooks: { dns: { servers?: readonly string[]; timeoutMs: number } } }): NameResolver {
  let r = requestResolvers.get(config);
  if (!r) requestResolvers.set(config, (r = new NameResolver({ ...config.webhooks.dns, maxConcurrent: 64 })));
  return r;
}
