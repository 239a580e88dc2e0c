import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';

/**
 * Console sessions (DECISIONS 23): a time-limited console on an active instance (VNC) or server
 * (IPMI serial-over-LAN). Opening and closing are events on the session's own stream, the audit trail
 * of who opened which console when. The URL's one-time token is never here: the driver gets it, the
 * client sees it once, the events keep only its SHA-256 hash.
 */
export const consoleSessionStream = (id: string) => `console-session-${id}`;

/** How long a session lasts (DECISIONS 23). */
export const CONSOLE_SESSION_TTL_MS = 15 * 60_000;

export const CONSOLE_RESOURCE_TYPES = ['instance', 'server'] as const;
export type ConsoleResourceType = (typeof CONSOLE_RESOURCE_TYPES)[number];
export const CONSOLE_PROTOCOLS = ['vnc', 'ipmi-sol'] as const;
export type ConsoleProtocol = (typeof CONSOLE_PROTOCOLS)[number];
export type ConsoleSessionStatus = 'open' | 'closed';
/** Why a session closed: its holder closed it, it expired, or its resource stopped or was terminated. */
export const CLOSE_REASONS = ['closed', 'expired', 'resource-stopped', 'resource-terminated'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

/** Virtual machines get VNC, bare metal the IPMI serial console. */
export const consoleProtocol = (resourceType: ConsoleResourceType): ConsoleProtocol => (resourceType === 'instance' ? 'vnc' : 'ipmi-sol');

export type ConsoleSessionOpened = DomainEvent<
  'consoles.ConsoleSessionOpened.v1',
  { sessionId: string; projectId: string; resourceType: ConsoleResourceType; resourceId: string; protocol: ConsoleProtocol; tokenHash: string; expiresAt: string; openedAt: string; openedBy: string }
>;
export type ConsoleSessionClosed = DomainEvent<'consoles.ConsoleSessionClosed.v1', { sessionId: string; projectId: string; reason: CloseReason; closedAt: string; closedBy: string }>;
export type ConsoleSessionEvent = ConsoleSessionOpened | ConsoleSessionClosed;
export const ConsoleSessionEventTypes = { Opened: 'consoles.ConsoleSessionOpened.v1', Closed: 'consoles.ConsoleSessionClosed.v1' } as const;

export type ConsoleSessionState =
  | { status: 'none' }
  | { status: ConsoleSessionStatus; sessionId: string; projectId: string; resourceType: ConsoleResourceType; resourceId: string; expiresAt: string };

/** `resourceStatus`: the resource's status as the handler read it; only an active one gets a console. */
export type OpenConsoleSession = {
  type: 'OpenConsoleSession';
  sessionId: string;
  projectId: string;
  resourceType: ConsoleResourceType;
  resourceId: string;
  resourceStatus: string;
  tokenHash: string;
  expiresAt: string;
  now: string;
  openedBy: string;
};
/** `strict`: a client's close, refused (409) on a closed session; the system's closes are no-ops there. */
export type CloseConsoleSession = { type: 'CloseConsoleSession'; reason: CloseReason; strict: boolean; now: string; closedBy: string };
export type ConsoleSessionCommand = OpenConsoleSession | CloseConsoleSession;

export const consoleSessionDecider: Decider<ConsoleSessionCommand, ConsoleSessionEvent, ConsoleSessionState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'consoles.ConsoleSessionOpened.v1': {
        const { sessionId, projectId, resourceType, resourceId, expiresAt } = event.data;
        return { status: 'open', sessionId, projectId, resourceType, resourceId, expiresAt };
      }
      case 'consoles.ConsoleSessionClosed.v1':
        return state.status === 'none' ? state : { ...state, status: 'closed' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'OpenConsoleSession': {
        if (state.status !== 'none') throw new DomainError('CONFLICT', `Console session ${command.sessionId} already exists`);
        if (command.resourceStatus !== 'active') {
          throw new DomainError('INVALID_STATE', `A console opens on an active ${command.resourceType}; ${command.resourceType} ${command.resourceId} is ${command.resourceStatus}`);
        }
        const { sessionId, projectId, resourceType, resourceId, tokenHash, expiresAt, now, openedBy } = command;
        return [{ type: 'consoles.ConsoleSessionOpened.v1', data: { sessionId, projectId, resourceType, resourceId, protocol: consoleProtocol(resourceType), tokenHash, expiresAt, openedAt: now, openedBy } }];
      }
      case 'CloseConsoleSession': {
        if (state.status === 'none') throw new DomainError('NOT_FOUND', 'Console session not found');
        if (state.status === 'closed') {
          if (command.strict) throw new DomainError('INVALID_STATE', `Console session ${state.sessionId} is already closed`);
          return [];
        }
        return [{ type: 'consoles.ConsoleSessionClosed.v1', data: { sessionId: state.sessionId, projectId: state.projectId, reason: command.reason, closedAt: command.now, closedBy: command.closedBy } }];
      }
    }
  },
};
