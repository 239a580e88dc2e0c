import * as net from 'node:net';

/**
 * A TCP proxy a test owns in front of one engine (PostgreSQL, Redis, the read store, SMTP, stripe-mock):
 * `cut()` resets every open connection and refuses new ones until `restore()`, so an outage is
 * simulated for one server under test without stopping an engine other suites share. `relay` says
 * how the upstream's bytes reach the client (piped as they are by default; Kafka's proxy rewrites the
 * advertised brokers in them: libs/messaging/test/kafka-proxy.ts).
 */
export class TcpCutProxy {
  /** Connections accepted while open (a test can check the traffic went through here). */
  accepted = 0;
  private isCut = false;
  private readonly sockets = new Set<net.Socket>();

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
    return this.isCut;
  }

  cut(): void {
    this.isCut = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.isCut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, target: { host: string; port: number }): void {
    if (this.isCut) {
      client.destroy();
      return;
    }
    this.accepted++;
    const upstream = net.connect(target.port, target.host);
    const pair = [client, upstream];
    for (const s of pair) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        for (const other of pair) other.destroy();
      });
    }
    client.pipe(upstream);
    this.relay(upstream, client);
  }
}
