/**
 * A use case's refusal names fields of its own input (`/cidr`); the HTTP edge, which knows where that
 * input sat in the request's document, rebases its pointers once (issue 21 §1), as does a caller that
 * nests inputs (an estimate's items, `/items/{i}/attributes`) before it.
 */
import type { ArgumentsHost } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest, rebased } from '../../application/src/errors';
import { ApiExceptionFilter } from '../src/exception-filter';
import { RouteTable } from '../src/route-table';

/** What the exception filter answers for `thrown` on a request whose body fields sat at `bodyPointer`. */
function answer(thrown: unknown, bodyPointer: string | undefined): { status: number; body: { errors: { code: string; source?: Record<string, string> }[] } } {
  const out = { status: 0, body: undefined as unknown };
  const reply = {
    sent: false,
    status: (s: number) => ((out.status = s), reply),
    header: () => reply,
    send: (b: unknown) => ((out.body = JSON.parse(JSON.stringify(b))), reply),
  };
  const req = { parsed: bodyPointer === undefined ? undefined : { bodyPointer }, routeOptions: { url: '/v1/x' }, url: '/v1/x', method: 'POST', id: 'r1', log: { error() {}, warn() {} } };
  const host = { switchToHttp: () => ({ getRequest: () => req as unknown as FastifyRequest, getResponse: () => reply as unknown as FastifyReply }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter(new RouteTable()).catch(thrown, host);
  return out as ReturnType<typeof answer>;
}

/** As a use case refuses: pointers into its own input, one of them nested, beside a query parameter. */
const refusal = () =>
  badRequest([
    { detail: '10.0.0.0/8 overlaps', source: { pointer: '/cidr' } },
    { detail: 'unknown plan', source: { pointer: '/nodePools/1/plan' } },
    { detail: 'bad provider', source: { parameter: 'providerId' } },
  ]);

const sources = (r: ReturnType<typeof answer>) => r.body.errors.map((e) => e.source);

describe('an application error’s pointers are rebased where its input sat', () => {
  it('under /data/attributes for a JSON:API body', () => {
    const r = answer(refusal(), '/data/attributes');
    expect(r.status).toBe(400);
    expect(sources(r)).toEqual([{ pointer: '/data/attributes/cidr' }, { pointer: '/data/attributes/nodePools/1/plan' }, { parameter: 'providerId' }]);
  });

  it('as they are for a plain body, or a request without one', () => {
    expect(sources(answer(refusal(), ''))).toEqual([{ pointer: '/cidr' }, { pointer: '/nodePools/1/plan' }, { parameter: 'providerId' }]);
    expect(sources(answer(new AppError('CONFLICT', 'overlaps', { source: { pointer: '/cidr' } }), undefined))).toEqual([{ pointer: '/cidr' }]);
  });

  it('under an item’s place, then under the document’s, for a nested input (an estimate’s or a batch’s item)', () => {
    const single = new AppError('NOT_FOUND', 'Volume v1 not found', { source: { pointer: '/volumeId' } });
    expect(sources(answer(rebased(single, '/items/2/attributes'), '/data/attributes'))).toEqual([{ pointer: '/data/attributes/items/2/attributes/volumeId' }]);
    expect(sources(answer(rebased(refusal(), '/items/0/attributes'), ''))).toEqual([{ pointer: '/items/0/attributes/cidr' }, { pointer: '/items/0/attributes/nodePools/1/plan' }, { parameter: 'providerId' }]);
  });

  it('keeps the error otherwise: its code, detail and meta; anything but an AppError passes through', () => {
    const e = new AppError('INVALID_PLAN', 'no such plan', { source: { pointer: '/plan' }, meta: { plan: 'x' } });
    const r = rebased(e, '/items/1/attributes') as AppError;
    expect(r).toBeInstanceOf(AppError);
    expect([r.code, r.detail, r.meta, r.source]).toEqual(['INVALID_PLAN', 'no such plan', { plan: 'x' }, { pointer: '/items/1/attributes/plan' }]);
    expect(e.source).toEqual({ pointer: '/plan' });
    const other = new Error('boom');
    expect(rebased(other, '/items/1/attributes')).toBe(other);
  });
});
