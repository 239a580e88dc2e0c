/**
 * Rebuilding a keyed write's answer after a crash (DECISIONS 5, issue 16): a retry with the key of a
 * write that committed but was never answered does not run again; the route's `recover` answers what
 * the write answered, from the write itself (its stream and position, recorded with it).
 */
import { Inject } from '@nestjs/common';
import { Query, QueryBus, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { RecordedEvent } from '../../../../libs/eventstore/src/event-store.port';
import { principalDataScope, principalProjectId, type Principal } from '../../../../libs/http/src/auth';
import type { CommittedWrite } from '../../../../libs/http/src/idempotency';
import type { RecoverAnswer } from '../../../../libs/http/src/route';
import type { ReadDoc } from '../../../../libs/readstore/src/read-store.port';
import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { PORTS } from '../tokens';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

/**
 * A route's `recover`: the query the committed write names, run on the QueryBus (its handler reads as
 * the write's own answer did), and the answer made of what it found.
 */
export const recoverBy =
  <R>(query: (write: RecoveredWrite) => Query<R | null>, answer: (found: R) => unknown = (found) => found): RecoverAnswer =>
  recoverWith(principalDataScope, query, answer);

/** `recoverBy` for what a project holds in both modes (API keys, members, roles, KYC): `projectId` is the bare project. */
export const recoverInProject =
  <R>(query: (write: RecoveredWrite) => Query<R | null>, answer: (found: R) => unknown = (found) => found): RecoverAnswer =>
  recoverWith(principalProjectId, query, answer);

const recoverWith =
  <R>(tenant: (p: Principal) => string | undefined, query: (write: RecoveredWrite) => Query<R | null>, answer: (found: R) => unknown): RecoverAnswer =>
  async (write, { principal, get }) => {
    const projectId = tenant(principal);
    const found = projectId ? await get(QueryBus).execute(query({ ...write, projectId, principal })) : null;
    return found == null ? null : answer(found);
  };

/** The committed write, with the tenant (the data scope, or the bare project for `recoverInProject`) it was written under. */
export interface RecoveredWrite extends CommittedWrite {
  projectId: string;
  principal: Principal;
}

/** The id of the resource a stream holds, when the stream is that resource's (`template-<id>` for `(id) => 'template-' + id`). */
export function idInStream(stream: (id: string) => string, streamId: string): string | null {
  const prefix = stream('');
  const id = streamId.startsWith(prefix) ? streamId.slice(prefix.length) : '';
  return id && stream(id) === streamId ? id : null;
}

/** The first event the writing request appended to the write's stream (its `requested` event, which names the job). */
export async function requestEvent(ports: PortsOf<'events'>, write: CommittedWrite, type?: string): Promise<RecordedEvent | null> {
  const events = await ports.events.readStream(write.streamId);
  return events.find((e) => e.position <= write.position && e.metadata.requestId === write.requestId && (!type || e.type === type)) ?? null;
}

type TenantDoc = ReadDoc & { projectId: string | null };

/**
 * The document a keyed write to the resource's own stream (`stream(id)`) left, as of that write,
 * when it is the tenant's: the recovery of every resource whose answer is its document.
 */
export class WrittenDocument<D extends TenantDoc> extends Query<D | null> {
  constructor(
    readonly projection: DocumentProjection<D>,
    readonly stream: (id: string) => string,
    readonly write: RecoveredWrite,
  ) {
    super();
  }
}

@QueryHandler(WrittenDocument)
export class WrittenDocumentHandler implements IQueryHandler<WrittenDocument<TenantDoc>> {
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'readBack'>) {}

  async execute({ projection, stream, write }: WrittenDocument<TenantDoc>): Promise<TenantDoc | null> {
    const id = idInStream(stream, write.streamId);
    const doc = id ? await this.ports.readBack(projection, write.streamId, id, write.position) : null;
    return doc && doc.projectId === write.projectId ? doc : null;
  }
}

/** `recoverBy` for a resource whose write's answer is made of its document alone (`WrittenDocument`). */
export const recoverDocument = <D extends TenantDoc>(projection: DocumentProjection<D>, stream: (id: string) => string, answer: (doc: D) => unknown): RecoverAnswer =>
  recoverBy((w) => new WrittenDocument(projection, stream, w), answer);
