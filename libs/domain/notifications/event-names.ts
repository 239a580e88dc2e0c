/**
 * Published event names (DECISIONS 10: `<resource>.<past-tense verb>`), derived from the recorded
 * event types `<context>.<Resource><Verb>.v<n>` of the registered contexts, never typed by hand:
 *
 * - the verb is the type's last word; the resource is the longest leading run of its other words
 *   that some type of the catalogue records being made (`…Requested`, `Created`, `Opened`,
 *   `Registered`, `Issued`, `Added`, `Enqueued`, `Imported`), else its first word; the remaining words join the
 *   verb (`InstanceActionRequested` → `instance.action_requested`);
 * - a resource's own request to exist (`<Resource>Requested`) is published as `<resource>.created`:
 *   the resource exists (and is listed, `creating`) from then on; `instance.provisioned` follows;
 * - words are snake_case; versions of one type share a name (`InstanceTemplateCreated.v1`/`.v2`).
 *
 * So `compute.InstanceStopped.v1` → `instance.stopped`, `jobs.JobFailed.v1` → `job.failed`, and a
 * new context's `billing.InvoicePaid.v1` → `invoice.paid` as soon as its module lists it.
 */
const TYPE = /^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9]*)\.v(\d+)$/;
const MAKING_VERBS = new Set(['Requested', 'Created', 'Opened', 'Registered', 'Issued', 'Added', 'Enqueued', 'Imported']);

const words = (pascal: string): string[] => pascal.match(/[A-Z][a-z0-9]*/g) ?? [];
const snake = (ws: string[]): string => ws.map((w) => w.toLowerCase()).join('_');

interface Parsed {
  nouns: string[];
  verb: string;
}

function parse(type: string): Parsed | null {
  const m = TYPE.exec(type);
  if (!m) return null;
  const ws = words(m[2]);
  if (ws.length < 2 || ws.join('') !== m[2]) return null;
  return { nouns: ws.slice(0, -1), verb: ws[ws.length - 1] };
}

export interface EventNameCatalogue {
  /** Published names, sorted. */
  names: string[];
  /** The published name of a recorded type, or null when the type is not published. */
  nameOf(type: string): string | null;
  /** Whether `name` is published (or `*`). */
  isPublished(name: string): boolean;
}

export function eventNameCatalogue(eventTypes: readonly string[], unpublished: readonly string[] = []): EventNameCatalogue {
  const hidden = new Set(unpublished);
  // Resources are found among every type (an unpublished create still names its resource).
  const parsed = eventTypes.map((t) => [t, parse(t)] as const);
  const made = new Map<string, { words: string[]; verbs: Set<string> }>();
  for (const [, p] of parsed) {
    if (!p || !MAKING_VERBS.has(p.verb)) continue;
    const key = p.nouns.join('');
    const entry = made.get(key) ?? { words: p.nouns, verbs: new Set<string>() };
    entry.verbs.add(p.verb);
    made.set(key, entry);
  }
  // A request on a resource (`VolumeOperationRequested`, `InstanceActionRequested`) makes no resource of its own,
  // unless requests are made on it in turn (`FileSystemRequested`, `FileSystemOperationRequested`).
  const requested = [...made].filter(([, e]) => e.verbs.has('Requested')).map(([k]) => k);
  const onResource = (ws: string[]) => ws.slice(0, -1).some((_, i) => made.has(ws.slice(0, i + 1).join('')));
  const resources = new Set(
    [...made]
      .filter(([key, { words: ws, verbs }]) => !(verbs.size === 1 && verbs.has('Requested') && onResource(ws) && !requested.some((r) => r !== key && r.startsWith(key))))
      .map(([k]) => k),
  );
  const byType = new Map<string, string>();
  for (const [type, p] of parsed) {
    if (!p || hidden.has(type)) continue;
    let cut = 1;
    for (let i = p.nouns.length; i >= 1; i--) {
      if (resources.has(p.nouns.slice(0, i).join(''))) {
        cut = i;
        break;
      }
    }
    const rest = [...p.nouns.slice(cut), p.verb];
    const action = rest.length === 1 && p.verb === 'Requested' ? 'created' : snake(rest);
    byType.set(type, `${snake(p.nouns.slice(0, cut))}.${action}`);
  }
  const names = [...new Set(byType.values())].sort();
  const published = new Set(names);
  return {
    names,
    nameOf: (type) => byType.get(type) ?? null,
    isPublished: (name) => name === '*' || published.has(name),
  };
}

/** Whether an endpoint subscribed to `events` wants `name`. */
export const subscribes = (events: readonly string[], name: string): boolean => events.includes('*') || events.includes(name);
