import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { contextOf, isInternal } from '../../libs/messaging/src/cloudevents';

/**
 * What breaks "one vocabulary" in a log: a stream category whose streams hold events of more than one
 * context (the relay keys by stream id and routes by type prefix, so such a stream's events would
 * land on two topics, out of order), and an event type no registered context lists (it would be
 * published under a topic nobody declared, and be missing from the AsyncAPI document).
 */
export function logVocabularyProblems(events: readonly RecordedEvent[], registered: readonly { name: string; eventTypes: readonly string[] }[]): { mixedCategories: Record<string, string[]>; unregisteredTypes: string[]; categories: Record<string, string> } {
  const known = new Set(registered.flatMap((m) => m.eventTypes));
  const contextsByCategory = new Map<string, Set<string>>();
  const unregistered = new Set<string>();
  for (const e of events) {
    const dash = e.streamId.indexOf('-');
    const category = dash === -1 ? e.streamId : e.streamId.slice(0, dash);
    const set = contextsByCategory.get(category) ?? new Set<string>();
    set.add(contextOf(e));
    contextsByCategory.set(category, set);
    if (!isInternal(e) && !known.has(e.type)) unregistered.add(e.type);
  }
  const mixedCategories = Object.fromEntries([...contextsByCategory].filter(([, s]) => s.size > 1).map(([c, s]) => [c, [...s].sort()]));
  const categories = Object.fromEntries([...contextsByCategory].filter(([, s]) => s.size === 1).map(([c, s]) => [c, [...s][0]]).sort());
  return { mixedCategories, unregisteredTypes: [...unregistered].sort(), categories };
}
