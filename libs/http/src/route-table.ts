/** Every route Fastify knows (from its onRoute hook), for 405 + Allow. */
import type { FastifyInstance } from 'fastify';

interface Entry { regex: RegExp; methods: Set<string> }

const toRegex = (pattern: string): RegExp =>
  new RegExp(
    '^' + pattern.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/') + '$',
  );

export class RouteTable {
  private readonly entries = new Map<string, Entry>();

  attach(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (opts) => {
      const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
      const e = this.entries.get(opts.url) ?? { regex: toRegex(opts.url), methods: new Set<string>() };
      for (const m of methods) e.methods.add(String(m).toUpperCase());
      this.entries.set(opts.url, e);
    });
  }

  allowedMethods(path: string): string[] {
    const out = new Set<string>();
    for (const e of this.entries.values()) if (e.regex.test(path)) e.methods.forEach((m) => out.add(m));
    return [...out].sort();
  }
}
