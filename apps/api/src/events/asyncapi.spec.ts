import { Parser } from '@asyncapi/parser';
import { CONTEXT_MODULES } from '../../../../contexts/registrations';
import { topicOf } from '../../../../libs/messaging/src/cloudevents';
import { asyncApiDocument } from './asyncapi';

type Doc = { channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>; components: { messages: Record<string, { payload: unknown; headers: unknown }> } };

/** The event types that reach a topic without a message (payload and headers) on that topic's channel in `doc`. */
function withoutSchema(doc: Doc, types: readonly string[]): string[] {
  return types.filter((t) => {
    const channel = Object.values(doc.channels).find((c) => c.address === topicOf(t));
    const message = doc.components.messages[t];
    return !channel?.messages[t] || !message?.payload || !message.headers;
  });
}

describe('GET /v1/asyncapi.json: the AsyncAPI document of the topics', () => {
  const doc = asyncApiDocument() as unknown as Doc;
  const published = CONTEXT_MODULES.flatMap((m) => m.eventTypes);

  it('is a valid AsyncAPI 3 document for @asyncapi/parser (no error diagnostics)', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(document?.channels().length).toBe(CONTEXT_MODULES.length);
  });

  it('names every event type that reaches a topic, with its payload and Kafka headers', () => {
    expect(published.length).toBeGreaterThan(100);
    expect(withoutSchema(doc, published)).toEqual([]);
  });

  it('the check fails for an event type added without a schema', () => {
    expect(withoutSchema(doc, [...published, 'compute.SomethingNew.v1'])).toEqual(['compute.SomethingNew.v1']);
    // …and for a message whose payload went missing.
    const broken = asyncApiDocument() as unknown as Doc;
    delete (broken.components.messages['compute.InstanceRequested.v1'] as { payload?: unknown }).payload;
    expect(withoutSchema(broken, published)).toEqual(['compute.InstanceRequested.v1']);
  });
});
