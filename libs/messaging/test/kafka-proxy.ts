import * as net from 'node:net';
import { Kafka, logLevel } from 'kafkajs';

const LOOPBACK = '127.0.0.1';

interface Route {
  /** The broker as it advertises itself in metadata. */
  host: string;
  port: number;
  server: net.Server;
  localPort: number;
}

/**
 * A TCP proxy in front of a Kafka cluster that a test can cut and restore, so a client's outage can
 * be simulated without stopping the broker other suites share. One loopback listener per broker;
 * broker addresses in responses (Metadata, FindCoordinator) are rewritten to those listeners, so
 * after bootstrapping the client keeps talking through the proxy.
 */
export class KafkaCutProxy {
  /** Client connections accepted while open (a test can check the traffic went through here). */
  accepted = 0;
  private isCut = false;
  private readonly sockets = new Set<net.Socket>();

  private constructor(private readonly routes: Route[]) {}

  /** Starts one listener per broker of the cluster `brokers` bootstraps to. */
  static async start(brokers: string[]): Promise<KafkaCutProxy> {
    const admin = new Kafka({ clientId: 'relay-test-proxy', brokers, logLevel: logLevel.NOTHING, retry: { retries: 2 } }).admin();
    await admin.connect();
    let cluster: Awaited<ReturnType<typeof admin.describeCluster>>;
    try {
      cluster = await admin.describeCluster();
    } finally {
      await admin.disconnect();
    }
    const proxy = new KafkaCutProxy([]);
    for (const b of cluster.brokers) {
      const server = net.createServer((client) => proxy.accept(client, b.host, b.port));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, LOOPBACK, () => resolve());
      });
      proxy.routes.push({ host: b.host, port: b.port, server, localPort: (server.address() as net.AddressInfo).port });
    }
    return proxy;
  }

  /** Bootstrap addresses for a client that should go through the proxy. */
  get brokers(): string[] {
    return this.routes.map((r) => `${LOOPBACK}:${r.localPort}`);
  }

  /** The brokers become unreachable: open connections are reset and new ones closed at once. */
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
    await Promise.all(this.routes.map((r) => new Promise<void>((resolve) => r.server.close(() => resolve()))));
  }

  private accept(client: net.Socket, host: string, port: number): void {
    if (this.isCut) {
      client.destroy();
      return;
    }
    this.accepted++;
    const upstream = net.connect(port, host);
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
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      // Responses are size-prefixed frames; rewrite whole frames only.
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const size = pending.readInt32BE(0);
        if (pending.length < 4 + size) break;
        client.write(this.rewrite(pending.subarray(4, 4 + size)));
        pending = pending.subarray(4 + size);
      }
    });
  }

  /**
   * Replaces every advertised broker address (a string host, then an int32 port) by its loopback
   * listener. Hosts are encoded with an int16 length, or a uvarint length + 1 in flexible versions.
   */
  private rewrite(payload: Buffer): Buffer {
    let out = payload;
    for (const r of this.routes) {
      const host = Buffer.from(r.host);
      const port = Buffer.alloc(4);
      port.writeInt32BE(r.port);
      const encodings = [
        { prefix: Buffer.from([host.length >> 8, host.length & 0xff]), encode: (h: Buffer) => Buffer.from([h.length >> 8, h.length & 0xff]) },
        { prefix: Buffer.from([host.length + 1]), encode: (h: Buffer) => Buffer.from([h.length + 1]) },
      ];
      for (const { prefix, encode } of encodings) {
        const needle = Buffer.concat([prefix, host, port]);
        const local = Buffer.from(LOOPBACK);
        const localPort = Buffer.alloc(4);
        localPort.writeInt32BE(r.localPort);
        const replacement = Buffer.concat([encode(local), local, localPort]);
        const parts: Buffer[] = [];
        let from = 0;
        for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + needle.length)) {
          parts.push(out.subarray(from, at), replacement);
          from = at + needle.length;
        }
        if (parts.length > 0) out = Buffer.concat([...parts, out.subarray(from)]);
      }
    }
    const framed = Buffer.alloc(4 + out.length);
    framed.writeInt32BE(out.length);
    out.copy(framed, 4);
    return framed;
  }
}
