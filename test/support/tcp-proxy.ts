import * as net from 'node:net';

/**
 * A TCP proxy a test owns in front of one engine (PostgreSQL, Redis, the read store, SMTP, stripe-mock):
 * `cut()` resets every open connection and refuses new ones until `restore()`, so an outage is
 * simulated for one server under test without stopping an engine other suites share. `cut('blackhole')`
 * is the nastier network fault: every connection, open or new, stays open and accepts bytes but nothing
 * ever answers (a peer gone silent, a dropped route), until `restore()` resets them. (Blackholing an
 * open connection assumes the default piped relay.) `relay` says
 * how the upstream's bytes reach the client (piped as they are by default; Kafka's proxy rewrites the
 * advertised brokers in them: libs/messaging/test/kafka-proxy.ts).
 */
export class TcpCutProxy {
  /** Connections accepted while open (a test can check the traffic went through here). */
  accepted = 0;
  private mode: 'open' | 'refuse' | 'blackhole' = 'open';
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs = new Map<net.Socket, net.Socket>(); // client → upstream
  /** Client connections held open with nothing behind them (blackhole). */
  private readonly held = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly relay: (upstream: net.Socket, client: net.Socket) => void,
  ) {}

  static async start(target: { host: string; port: number }, relay: (upstream: net.Socket, client: net.Socket) => void = (upstream, client) => void upstream.pipe(client)): Promise<TcpCutProxy> {
    let proxy: TcpCutProxy | null = null;
    const server = net.createServer((client) => proxy!.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy = new TcpCutProxy(server, (server.address() as net.AddressInfo).port, relay);
    return proxy;
  }

  /** `url` with its host and port replaced by this proxy's (credentials, path and query kept). */
  static rewrite(url: string, port: number): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  }

  static targetOf(url: string, defaultPort: number): { host: string; port: number } {
    const u = new URL(url);
    return { host: u.hostname, port: Number(u.port || defaultPort) };
  }

  get cutNow(): boolean {
    return this.mode !== 'open';
  }

  cut(how: 'refuse' | 'blackhole' = 'refuse'): void {
    this.mode = how;
    if (how === 'blackhole') {
      for (const [client, upstream] of this.pairs) this.hold(client, upstream);
      return;
    }
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.held.clear();
  }

  restore(): void {
    this.mode = 'open';
    // A connection blackholed is dead to both ends: reset, as a peer that forgot it would.
    for (const s of this.held) s.destroy();
    this.held.clear();
  }

  /** Keeps `client` open and swallows what it sends; its upstream (if any) is closed. */
  private hold(client: net.Socket, upstream?: net.Socket): void {
    this.held.add(client);
    this.sockets.add(client);
    client.unpipe();
    client.on('data', () => undefined);
    client.resume();
    if (upstream) {
      this.pairs.delete(client);
      upstream.destroy();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    if (this.mode === 'refuse') {
      client.destroy();
      return;
    }
    if (this.mode === 'blackhole') {
      client.on('error', () => undefined);
      client.on('close', () => (this.sockets.delete(client), this.held.delete(client)));
      this.hold(client);
      return;
    }
    this.accepted++;
    const upstream = net.connect(target.port, target.host);
    const pair = [client, upstream];
    this.pairs.set(client, upstream);
    for (const s of pair) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        this.held.delete(s);
        this.pairs.delete(client);
        // A held client outlives its upstream (blackhole): it is closed by restore().
        for (const other of pair) if (!this.held.has(other)) other.destroy();
      });
    }
    client.pipe(upstream);
    this.relay(upstream, client);
  }
}
