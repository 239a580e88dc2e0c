/**
 * One vocabulary (ARCHITECTURE): a context's name is its event types' prefix and its topic's name.
 * The relay publishes by the type's prefix alone, so these hold for every registered type; that every
 * stream holds one context's events is checked over a whole log in test/e2e/log-vocabulary.e2e.spec.ts.
 */
import { CONTEXT_MODULES, EVENT_NAMES } from './registrations';
import { allTopics, contextOf, INTERNAL_CONTEXTS, isInternal, topicForContext, topicOf } from '../libs/messaging/src/cloudevents';

const TYPE = /^([a-z][a-z0-9]*)\.[A-Z][A-Za-z0-9]*\.v[1-9][0-9]*$/;
const names = CONTEXT_MODULES.map((m) => m.name);

describe('one vocabulary: context = event type prefix = topic', () => {
  it('registers each context once, under a name fit for a topic, none of them internal', () => {
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9]*$/);
    expect(names.filter((n) => INTERNAL_CONTEXTS.includes(n))).toEqual([]);
  });

  it("every module's event types are `<its name>.<Name>.v<N>`, so they land on its topic", () => {
    const wrong = CONTEXT_MODULES.flatMap((m) => m.eventTypes.filter((t) => !TYPE.test(t) || contextOf(t) !== m.name || topicOf(t) !== topicForContext(m.name)).map((t) => `${m.name}: ${t}`));
    expect(wrong).toEqual([]);
  });

  it('no event type is registered twice, and none is internal', () => {
    const all = CONTEXT_MODULES.flatMap((m) => m.eventTypes);
    expect(all.filter((t, i) => all.indexOf(t) !== i)).toEqual([]);
    expect(all.filter((t) => isInternal(t))).toEqual([]);
  });

  it("a module's unpublished types are its own", () => {
    expect(CONTEXT_MODULES.flatMap((m) => (m.unpublished ?? []).filter((t) => !m.eventTypes.includes(t)).map((t) => `${m.name}: ${t}`))).toEqual([]);
  });

  it('has one topic per registered context and no other', () => {
    expect(allTopics(names)).toEqual([...names].sort().map((n) => `cloud.${n}.events.v1`));
    const used = new Set(CONTEXT_MODULES.flatMap((m) => m.eventTypes).map((t) => topicOf(t)));
    expect([...used].sort()).toEqual(allTopics(names));
  });

  it('the published event names come from the registered types (the range ledger and delivery bookkeeping stay unnamed)', () => {
    expect(EVENT_NAMES.nameOf('billing.InvoicePaid.v1')).toBe('invoice.paid');
    expect(EVENT_NAMES.nameOf('networking.PrivateNetworkRangeReserved.v1')).toBeNull();
  });
});
