import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { pageOf, type ListPage } from '../../libs/application/src/views';
import type { Condition, Filter } from '../../libs/readstore/src/read-store.port';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { EVENT_INDEX, type EventIndexDoc } from '../../projections/event-index/event-index.projection';
import { InjectPorts } from '../inject-ports';
import { typeFilterOf } from './type-filters';

export interface EventFilters {
  /** An event type, or a prefix of one (`compute`, `compute.Instance`). */
  type?: string;
  subject?: string;
  /** Inclusive bounds on the commit time, ISO 8601 UTC. */
  from?: string;
  to?: string;
}

/** The project's events in one mode, newest first (DECISIONS 20), from the event index. */
export class ListEvents extends Query<{ items: EventIndexDoc[]; total: number }> {
  constructor(readonly scope: string, readonly filters: EventFilters, readonly page: ListPage) {
    super();
  }
}

/** A condition of two bounds (the read stores take several operators on one field; the port's type names one). */
const range = (bounds: Record<string, string | undefined>): Condition => Object.fromEntries(Object.entries(bounds).filter(([, v]) => v !== undefined)) as Condition;

/**
 * The filter of a list, chosen so an index serves it (projections/event-index): a whole type and a
 * bare context are equalities; any other prefix is a range on the type, checked while walking the
 * scope's (or the subject's) entries in position order.
 */
export function eventFilter(scope: string, f: EventFilters): Filter {
  const filter: Filter = { scope };
  if (f.type !== undefined) {
    const t = typeFilterOf(f.type);
    if ('type' in t) filter.eventType = t.type;
    else if ('context' in t) filter.context = t.context;
    else filter.eventType = range({ $gte: t.prefix, $lt: `${t.prefix}\uffff` });
  }
  if (f.subject !== undefined) filter.subject = f.subject;
  if (f.from !== undefined || f.to !== undefined) filter.time = range({ $gte: f.from, $lte: f.to });
  return filter;
}

@QueryHandler(ListEvents)
export class ListEventsHandler implements IQueryHandler<ListEvents> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ scope, filters, page }: ListEvents) {
    return (await this.ports.projections.collection(EVENT_INDEX)).find({ filter: eventFilter(scope, filters), ...pageOf(page) });
  }
}
