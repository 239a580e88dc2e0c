import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';
import { CatalogViews } from './catalog.views';

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

  constructor(@Inject(PLATFORM) platform: Platform) {
    this.views = new CatalogViews(platform);
  }

  execute({ view, args }: CatalogQuery): Promise<Awaited<ReturnType<CatalogViews[View]>>> {
    return (this.views[view] as (...a: unknown[]) => Promise<Awaited<ReturnType<CatalogViews[View]>>>).apply(this.views, args);
  }
}
