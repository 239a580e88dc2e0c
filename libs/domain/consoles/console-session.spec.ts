import { deciderSpec } from '../shared/decider-spec';
import { consoleSessionDecider, type ConsoleSessionEvent } from './console-session';

const given = deciderSpec(consoleSessionDecider);
const now = '2026-01-01T00:00:00.000Z';
const expiresAt = '2026-01-01T00:15:00.000Z';
const open = (resourceType: 'instance' | 'server', resourceStatus = 'active') =>
  ({ type: 'OpenConsoleSession', sessionId: 's1', projectId: 'p1', resourceType, resourceId: 'r1', resourceStatus, tokenHash: 'h', expiresAt, now, openedBy: 'key:k1' }) as const;
const opened = (resourceType: 'instance' | 'server', protocol: 'vnc' | 'ipmi-sol'): ConsoleSessionEvent => ({
  type: 'consoles.ConsoleSessionOpened.v1',
  data: { sessionId: 's1', projectId: 'p1', resourceType, resourceId: 'r1', protocol, tokenHash: 'h', expiresAt, openedAt: now, openedBy: 'key:k1' },
});
const close = (reason: 'closed' | 'expired', strict: boolean) => ({ type: 'CloseConsoleSession', reason, strict, now, closedBy: 'system' }) as const;
const closed = (reason: 'closed' | 'expired'): ConsoleSessionEvent => ({ type: 'consoles.ConsoleSessionClosed.v1', data: { sessionId: 's1', projectId: 'p1', reason, closedAt: now, closedBy: 'system' } });

describe('console session decider (DECISIONS 23)', () => {
  it('opens on an active resource: VNC for an instance, IPMI serial-over-LAN for a server', () => {
    given([]).when(open('instance')).then([opened('instance', 'vnc')]);
    given([]).when(open('server')).then([opened('server', 'ipmi-sol')]);
  });

  it('refuses a resource that is not active (409 INVALID_STATE)', () => {
    given([]).when(open('instance', 'stopped')).thenThrows('INVALID_STATE', /stopped/);
  });

  it("closes an open session once: a client's second close is 409, the system's a no-op", () => {
    given([opened('instance', 'vnc')]).when(close('expired', false)).then([closed('expired')]);
    given([opened('instance', 'vnc'), closed('closed')]).when(close('closed', true)).thenThrows('INVALID_STATE', /already closed/);
    given([opened('instance', 'vnc'), closed('closed')]).when(close('expired', false)).then([]);
    given([]).when(close('closed', true)).thenThrows('NOT_FOUND');
  });
});
