/**
 * The vendors' error envelopes (DECISIONS 19): the OpenAI shape `{error:{message,type,param,code}}`
 * on every route but /v1/messages, which answers Anthropic's `{type:'error',error:{type,message}}`.
 * Both SDKs pick their exception class by status; the Anthropic one also reads `error.type`.
 */
export type Vendor = 'openai' | 'anthropic';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    /** OpenAI `type`, Anthropic `error.type` is derived from the status. */
    readonly openaiType: string,
    readonly code: string | null,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'api_error',
  529: 'overloaded_error',
};

export const anthropicType = (status: number) => ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');

export function errorBody(vendor: Vendor, e: GatewayError): unknown {
  if (vendor === 'anthropic') return { type: 'error', error: { type: anthropicType(e.status), message: e.message } };
  return { error: { message: e.message, type: e.openaiType, param: e.param, code: e.code } };
}

/** Spec 5.2: missing, malformed, expired or revoked: one answer that does not say which. */
export const invalidKey = () => new GatewayError(401, 'authentication_error', 'invalid_key', 'Invalid or missing API key');
export const badRequest = (message: string, param: string | null = null) => new GatewayError(400, 'invalid_request_error', null, message, {}, param);
export const notFound = (message: string) => new GatewayError(404, 'invalid_request_error', 'not_found', message);
export const forbidden = (message: string) => new GatewayError(403, 'permission_error', 'forbidden', message);
