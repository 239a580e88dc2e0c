import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../../../libs/application/src/errors';
import { takesAsOf } from '../../../../libs/http/src/route';
import type { RecordedEvent } from '../../../../libs/eventstore/src/event-store.port';
import type { ReadCollection, ReadDoc } from '../../../../libs/readstore/src/read-store.port';
import type { Ports, ReadModels } from '../../../../libs/runtime/src/ports';
import { foldDocument, type DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { foldDocumentAsOf, foldsByInstant } from '../../../../libs/subscriptions/src/instant-fold';
import { asOfContext } from '../../../../libs/runtime/src/as-of-context';
import { EVENT_INDEX } from '../../../../projections/event-index/event-index.projection';

/**
 * `?asOf=<ISO time>` on every single-resource GET (DECISIONS 20): the resource as it was at that
 * instant. One hook for every route: a GET with path parameters that is not a list runs inside an
 * as-of context, and while it does, every read model document the handler gets by id
 * (`collection(p).get(id)`) is folded from its history, up to the instant, by the projection's own
 * one fold step (`applyEvent`, as the live projector applies it): never a second fold per resource. A document that
 * did not exist yet is null, so the route answers its usual 404.
 *
 * A document's history is the events of its streams named `<prefix>-<id>`, applied in log order while
 * their commit time is at or before the instant (compared as instants, in UTC), from the nearest
 * snapshot of that fold (libs/subscriptions/src/instant-fold.ts): bounded however long the history.
 */

const instant = z.iso.datetime({ offset: true });

/** Fastify preHandler: runs a single-resource GET with `asOf` inside the as-of context. */
export function asOfHook(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const raw = (req.query as Record<string, unknown> | undefined)?.asOf;
  const route = req.apiRoute;
  if (raw === undefined || !route || !takesAsOf(route)) return done();
  const parsed = instant.safeParse(raw);
  const store = parsed.success
    ? { at: Date.parse(parsed.data) }
    : { error: new AppError('INVALID_QUERY', 'asOf must be an ISO 8601 date-time (e.g. 2030-01-01T00:00:00Z)', { source: { parameter: 'asOf' } }) };
  asOfContext.run(store, () => done());
}

/** The state of document `id` of projection `p` after the events recorded at or before `at`. */
export async function foldAsOf<D extends ReadDoc>(ports: Pick<Ports, 'events' | 'projections'>, p: DocumentProjection<D>, id: string, at: number): Promise<D | null> {
  if (foldsByInstant(ports.events)) return foldDocumentAsOf(ports.events, p, id, at);
  // A store that cannot find streams by key nor keep snapshots (EventStoreDB): the whole history, streams from the index.
  const index = await ports.projections.collection(EVENT_INDEX);
  const { items } = await index.find({ filter: { streamKey: id }, sort: [{ field: 'position', direction: 1 }], withTotal: false });
  const streams = [...new Set(items.map((e) => e.subject))];
  const events: RecordedEvent[] = (await Promise.all(streams.map((s) => ports.events.readStream(s)))).flat().sort((a, b) => a.position - b.position);
  return foldDocument(p, upTo(events, at), id);
}

/** The events up to the first one committed after `at` (in log order: always a prefix that existed). */
function upTo(events: RecordedEvent[], at: number): RecordedEvent[] {
  const past = events.findIndex((e) => new Date(e.recordedAt).getTime() > at);
  return past === -1 ? events : events.slice(0, past);
}


/** `collection` whose by-id reads are folded as of the instant; queries are answered by the read model as it is. */
function asOfCollection<D extends ReadDoc>(real: ReadCollection<D>, fold: (id: string) => Promise<D | null>): ReadCollection<D> {
  return Object.assign(Object.create(real) as ReadCollection<D>, {
    get: fold,
    getMany: async (ids: string[]) => (await Promise.all(ids.map(fold))).filter((d): d is Awaited<D> => d !== null) as D[],
  });
}

/** The ports the handlers get: the platform's, with read models that honour the as-of context of the request. */
export function asOfPorts<P extends Ports>(platform: P): P {
  const models = platform.projections;
  const projections: ReadModels = {
    collection: async <D extends ReadDoc>(p: DocumentProjection<D>) => {
      const real = await models.collection(p);
      const ctx = asOfContext.getStore();
      if (!ctx) return real;
      if ('error' in ctx) throw ctx.error;
      return asOfCollection(real, (id) => foldAsOf(platform, p, id, ctx.at));
    },
    liveRunner: (name) => models.liveRunner(name),
  };
  // A handler that folds a stream itself (a read model not caught up yet) folds it as of the instant too.
  const store = platform.events;
  const events = Object.assign(Object.create(store) as typeof store, {
    readStream: async (streamId: string, options?: Parameters<typeof store.readStream>[1]) => {
      const read = await store.readStream(streamId, options);
      const ctx = asOfContext.getStore();
      return ctx && 'at' in ctx ? upTo(read, ctx.at) : read;
    },
  });
  return Object.assign(Object.create(platform) as P, { projections, events });
}
