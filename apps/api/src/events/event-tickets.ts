import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { WrongExpectedRevisionError } from '../../../../libs/eventstore/src/event-store.port';
import { EventsEventTypes, ticketStream, type StreamTicketRedeemed } from '../../../../libs/domain/events/tickets';
import { dataScope } from '../../../../libs/domain/shared/scope';
import { principalActor, type Principal, type ProjectPrincipal } from '../../../../libs/http/src/auth';
import type { PortsOf } from '../../../../libs/runtime/src/ports';
import type { KeyHasher } from '../../../../usecases/identity/api-key-secrets';
import { IDENTITY, PORTS } from '../tokens';

/** A ticket is good for this long after it is issued (DECISIONS 20: 60 s), and once. */
export const TICKET_TTL_MS = 60_000;
const PREFIX = 'wst_';
/** What a ticket says: its nonce, the issuer's project, mode and identity, and when it expires (ms). */
interface TicketClaims {
  n: string;
  p: string;
  m: 'live' | 'test';
  k: 'key' | 'member';
  i: string;
  e: number;
}

export interface IssuedTicket {
  nonce: string;
  ticket: string;
  expiresAt: string;
}

/**
 * One-time tickets of the WebSocket stream (DECISIONS 20), for browsers, which cannot send
 * `Authorization` on a WebSocket. A ticket is its claims signed with the API key pepper (shared by
 * every process of a deployment) and is never stored; redeeming it appends
 * `events.StreamTicketRedeemed.v1` to `eventticket-<nonce>` expecting no stream, so a second use
 * fails on any API node. It grants `events:read` in its project and mode only, whatever the issuer's
 * role, and only while the key that asked for it still authenticates (checked at redemption).
 */
@Injectable()
export class EventTickets {
  constructor(
    @Inject(PORTS) private readonly ports: PortsOf<'events' | 'clock'>,
    @Inject(IDENTITY) private readonly identity: { hasher: KeyHasher; keyIsLive(keyId: string): Promise<boolean>; projectStatus(projectId: string): Promise<string> },
  ) {}

  issue(p: ProjectPrincipal): IssuedTicket {
    const claims: TicketClaims = {
      n: uuidv7(),
      p: p.projectId,
      m: p.mode,
      k: p.kind === 'project-key' ? 'key' : 'member',
      i: p.kind === 'project-key' ? p.keyId : p.memberId,
      e: this.ports.clock.now() + TICKET_TTL_MS,
    };
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return { nonce: claims.n, ticket: `${PREFIX}${body}.${this.sign(body)}`, expiresAt: new Date(claims.e).toISOString() };
  }

  /**
   * The principal a ticket grants, or null (401) when it is malformed, forged, expired, used before,
   * or of another project or mode than the credential sent beside it.
   */
  async redeem(ticket: string, beside: Principal | null): Promise<Principal | null> {
    const claims = this.verify(ticket);
    if (!claims || claims.e <= this.ports.clock.now()) return null;
    if (beside && (beside.kind === 'platform-admin' || beside.projectId !== claims.p || beside.mode !== claims.m)) return null;
    // The issuer must still be let in: a ticket dies with its key's revocation, not 60 s later.
    if (claims.k === 'key' ? !(await this.identity.keyIsLive(claims.i)) : (await this.identity.projectStatus(claims.p)) === 'closed') return null;
    const principal: Principal =
      claims.k === 'key'
        ? { kind: 'project-key', projectId: claims.p, keyId: claims.i, role: 'viewer', mode: claims.m, permissions: ['events:read'] }
        : { kind: 'project-member', projectId: claims.p, memberId: claims.i, role: 'viewer', mode: 'live', permissions: ['events:read'] };
    const event: Omit<StreamTicketRedeemed, 'metadata'> & { id: string } = {
      id: uuidv7(),
      type: EventsEventTypes.TicketRedeemed,
      data: { nonce: claims.n, projectId: claims.p, redeemedAt: new Date(this.ports.clock.now()).toISOString() },
    };
    try {
      await this.ports.events.append(ticketStream(claims.n), [{ ...event, metadata: { schemaVersion: 1, projectId: dataScope(claims.p, claims.m), mode: claims.m, actor: principalActor(principal) } }], {
        expectedRevision: 'no_stream',
      });
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return null;
      throw err;
    }
    return principal;
  }

  private sign(body: string): string {
    return this.identity.hasher.hash(`events-ticket:${body}`);
  }

  private verify(ticket: string): TicketClaims | null {
    if (!ticket.startsWith(PREFIX) || ticket.length > 1024) return null;
    const [body, mac, ...rest] = ticket.slice(PREFIX.length).split('.');
    if (!body || !mac || rest.length) return null;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TicketClaims;
      return typeof c.n === 'string' && typeof c.p === 'string' && (c.m === 'live' || c.m === 'test') && (c.k === 'key' || c.k === 'member') && typeof c.i === 'string' && typeof c.e === 'number' ? c : null;
    } catch {
      return null;
    }
  }
}
