/** What a list handler returns: items + total; the pipeline turns it into the collection envelope (libs/application/src/views.ts). */
export { ListResult, listResult } from '../../application/src/views';
