import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../libs/application/src/errors';
import { CONSOLE_SESSION_TTL_MS, consoleProtocol, consoleSessionDecider, consoleSessionStream, type ConsoleResourceType } from '../../libs/domain/consoles/console-session';
import { modeOfScope } from '../../libs/domain/shared/scope';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import type { Filter } from '../../libs/readstore/src/read-store.port';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { consoleSessionsProjection, type ConsoleSessionDoc } from '../../projections/console-sessions/console-sessions.projection';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { serversProjection } from '../../projections/servers/servers.projection';
import { closeConsoleSession } from './close-console-session';
import { ownDoc } from '../jobs/job-writes';

export class OpenConsoleSession extends Command<{ doc: ConsoleSessionDoc; url: string }> {
  constructor(
    readonly projectId: string,
    readonly resourceType: ConsoleResourceType,
    readonly resourceId: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}
export class CloseConsoleSession extends Command<void> {
  constructor(
    readonly projectId: string,
    readonly sessionId: string,
    readonly ctx: CommandContext,
  ) {
    super();
  }
}
export class GetConsoleSession extends Query<ConsoleSessionDoc> {
  constructor(
    readonly projectId: string,
    readonly sessionId: string,
  ) {
    super();
  }
}
export class ListConsoleSessions extends Query<{ items: ConsoleSessionDoc[]; total: number }> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ status?: string; resourceId?: string }>,
  ) {
    super();
  }
}

const ownSession = (ports: PortsOf<'projections'>, projectId: string, id: string) => ownDoc(ports, consoleSessionsProjection, projectId, id, 'Console session');

/** The resource (404 when not the project's), the session recorded (409 unless it is active), then the provider's URL. */
@CommandHandler(OpenConsoleSession)
export class OpenConsoleSessionHandler implements ICommandHandler<OpenConsoleSession> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'drivers' | 'events' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, resourceType, resourceId, ctx }: OpenConsoleSession) {
    const machine = resourceType === 'instance' ? await ownDoc(this.ports, instancesProjection, projectId, resourceId, 'Instance') : await ownDoc(this.ports, serversProjection, projectId, resourceId, 'Server');
    const driver = this.ports.drivers.get(machine.providerKind, modeOfScope(projectId));
    if (!driver.consoleUrl) throw new AppError('UNSUPPORTED_PROVIDER', `Provider ${machine.providerKind} offers no console`);
    const sessionId = uuidv7();
    const token = randomBytes(32).toString('base64url');
    const now = this.ports.clock.now();
    const expiresAt = new Date(now + CONSOLE_SESSION_TTL_MS).toISOString();
    const command = {
      type: 'OpenConsoleSession' as const,
      sessionId,
      projectId,
      resourceType,
      resourceId,
      resourceStatus: machine.status,
      tokenHash: createHash('sha256').update(token).digest('hex'),
      expiresAt,
      now: new Date(now).toISOString(),
      openedBy: String(ctx.metadata.actor ?? 'unknown'),
    };
    const r = await handleCommand(this.ports.events, consoleSessionStream(sessionId), consoleSessionDecider, command, ctx, { newStream: true });
    let url: string;
    try {
      url = await driver.consoleUrl(machine.externalId ?? machine.id, { protocol: consoleProtocol(resourceType), token, expiresAt });
    } catch (err) {
      // The provider gave no console: the session recorded for it closes at once.
      await closeConsoleSession(this.ports, { sessionId, reason: 'closed', closedBy: 'system:console-sessions' }, ctx);
      throw new AppError('UNAVAILABLE', `The provider could not open a console: ${(err as Error).message}`);
    }
    await this.ports.waitForProjections(r.position, [consoleSessionsProjection.name]);
    const doc = await this.ports.readBack(consoleSessionsProjection, consoleSessionStream(sessionId), sessionId, r.position);
    if (!doc) throw new AppError('UNAVAILABLE', 'The console session is not readable yet');
    return { doc, url };
  }
}

@CommandHandler(CloseConsoleSession)
export class CloseConsoleSessionHandler implements ICommandHandler<CloseConsoleSession> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'clock' | 'events' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, sessionId, ctx }: CloseConsoleSession): Promise<void> {
    await ownSession(this.ports, projectId, sessionId);
    const position = await closeConsoleSession(this.ports, { sessionId, reason: 'closed', closedBy: String(ctx.metadata.actor ?? 'unknown'), strict: true }, ctx);
    await this.ports.waitForProjections(position, [consoleSessionsProjection.name]);
  }
}

@QueryHandler(GetConsoleSession)
export class GetConsoleSessionHandler implements IQueryHandler<GetConsoleSession> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, sessionId }: GetConsoleSession) {
    return ownSession(this.ports, projectId, sessionId);
  }
}

@QueryHandler(ListConsoleSessions)
export class ListConsoleSessionsHandler implements IQueryHandler<ListConsoleSessions> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListConsoleSessions) {
    const filter: Filter = { projectId };
    if (list.filters.status) filter.status = list.filters.status;
    if (list.filters.resourceId) filter.resourceId = list.filters.resourceId;
    return (await this.ports.projections.collection(consoleSessionsProjection)).find({ filter, ...pageOf(list) });
  }
}

export const CONSOLE_SESSION_HANDLERS = [OpenConsoleSessionHandler, CloseConsoleSessionHandler, GetConsoleSessionHandler, ListConsoleSessionsHandler];
