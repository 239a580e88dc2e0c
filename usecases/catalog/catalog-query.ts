import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { CatalogViews } from './catalog-views';
import type { PortsOf } from '../../libs/runtime/src/ports';

type View = { [K in keyof CatalogViews]: CatalogViews[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof CatalogViews];

/** One catalog view by name, with its route's arguments (the routes differ only in the view they read). */
export class CatalogQuery<K extends View = View> extends Query<Awaited<ReturnType<CatalogViews[K]>>> {
  constructor(
    readonly view: K,
    readonly args: Parameters<CatalogViews[K]>,
  ) {
    super();
  }
}

@QueryHandler(CatalogQuery)
export class CatalogQueryHandler implements IQueryHandler<CatalogQuery> {
  private readonly views: CatalogViews;

  constructor(@InjectPorts() ports: PortsOf<'events' | 'projections'>) {
    this.views = new CatalogViews(ports);
  }

  execute({ view, args }: CatalogQuery): Promise<Awaited<ReturnType<CatalogViews[View]>>> {
    return (this.views[view] as (...a: unknown[]) => Promise<Awaited<ReturnType<CatalogViews[View]>>>).apply(this.views, args);
  }
}
