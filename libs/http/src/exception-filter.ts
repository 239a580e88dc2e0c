/** The one global exception filter: everything thrown becomes a JSON:API error document. */
import { ArgumentsHost, Catch, ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, UNAVAILABLE_RETRY_AFTER_SECONDS, internalError, methodNotAllowed, notFound } from './errors';
import { errorDocument } from './envelope';
import { toApiError } from './to-api-error';
import type { RouteTable } from './route-table';

export function sendApiError(reply: FastifyReply, err: ApiError): void {
  reply.status(err.status);
  // Every 503 says when to come back, whichever path refused (DECISIONS §1).
  if (err.status === 503 && !err.headers?.['Retry-After']) reply.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.send(errorDocument(err.toErrorObjects(), err.meta));
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    let err: ApiError | null;
    if (exception instanceof NotFoundException && req.routeOptions?.url === undefined) {
      const path = req.url.split('?')[0];
      const allow = this.routes.allowedMethods(path);
      err = allow.length ? methodNotAllowed(req.method, allow) : notFound(`No route for ${req.method} ${path}`);
    } else {
      err = toApiError(exception, req.parsed?.bodyPointer);
    }
    if (!err) {
      req.log.error({ err: exception }, 'unhandled error');
      err = internalError(String(req.id));
    } else if (err.status >= 500) {
      req.log.warn({ err: exception }, 'request failed with %d', err.status);
    }
    if (reply.sent) return;
    sendApiError(reply, err);
  }
}
