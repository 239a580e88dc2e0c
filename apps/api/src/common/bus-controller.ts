import { Inject } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';

/** The buses, for a controller that injects them itself: an app reaches @nestjs/cqrs only here (and its root module). */
export { CommandBus, QueryBus };

/** What a controller stands on: it maps HTTP to commands and queries, and their answers back. */
export abstract class BusController {
  constructor(
    @Inject(CommandBus) protected readonly commands: CommandBus,
    @Inject(QueryBus) protected readonly queries: QueryBus,
  ) {}
}
