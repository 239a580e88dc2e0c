import { Inject } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';

/** What a controller stands on: it maps HTTP to commands and queries, and their answers back. */
export abstract class BusController {
  constructor(
    @Inject(CommandBus) protected readonly commands: CommandBus,
    @Inject(QueryBus) protected readonly queries: QueryBus,
  ) {}
}
