import type * as net from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { TcpCutProxy } from '../../../test/support/tcp-proxy';

const LOOPBACK = '127.0.0.1';

interface Route {
  /** The broker as it advertises itself in metadata. */
  host: string;
  port: number;
  proxy: TcpCutProxy;
}

/**
 * A TCP proxy in front of a Kafka cluster that a test can cut and restore, so a client's outage can
 * be simulated without stopping the broker other suites share: one TcpCutProxy (test/support) per
 * broker, whose answers have the broker addresses (Metadata, FindCoordinator) rewritten to those
 * proxies, so after bootstrapping the client keeps talking through them.
 */
export class KafkaCutProxy {
  private constructor(private readonly routes: Route[]) {}

  /** Starts one proxy per broker of the cluster `brokers` bootstraps to. */
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
      proxy.routes.push({ host: b.host, port: b.port, proxy: await TcpCutProxy.start({ host: b.host, port: b.port }, (upstream, client) => proxy.relayRewritten(upstream, client)) });
    }
    return proxy;
  }

  /** Client connections accepted while open (a test can check the traffic went through here). */
  get accepted(): number {
    return this.routes.reduce((n, r) => n + r.proxy.accepted, 0);
  }

  /** Bootstrap addresses for a client that should go through the proxy. */
  get brokers(): string[] {
    return this.routes.map((r) => `${LOOPBACK}:${r.proxy.port}`);
  }

  /** The brokers become unreachable: open connections are reset and new ones closed at once. */
  cut(): void {
    for (const r of this.routes) r.proxy.cut();
  }

  restore(): void {
    for (const r of this.routes) r.proxy.restore();
  }

  async close(): Promise<void> {
    await Promise.all(this.routes.map((r) => r.proxy.close()));
  }

  /** Responses are size-prefixed frames: whole frames only are rewritten and passed on. */
  private relayRewritten(upstream: net.Socket, client: net.Socket): void {
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
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
        localPort.writeInt32BE(r.proxy.port);
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
