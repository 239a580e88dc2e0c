import { httpRefusalIsPermanent } from '../../libs/domain/outbox/failures';

/**
 * A GitHub-compatible issues API (DECISIONS 17): `POST /repos/{owner}/{repo}/issues`, `POST
 * /repos/{owner}/{repo}/issues/{n}/comments` and the two list routes a retry looks in. The token goes
 * only into the Authorization header; no message, log line or event carries it.
 */
export interface IssueTracker {
  createIssue(issue: { title: string; body: string }): Promise<{ number: number }>;
  comment(issueNumber: number, body: string): Promise<{ id: number }>;
  /** The issue whose body holds `marker`, among those updated since `since`. */
  findIssue(marker: string, since: string): Promise<number | null>;
  /** The comment of the issue holding `marker`, among those updated since `since`. */
  findComment(issueNumber: number, marker: string, since: string): Promise<number | null>;
}

/**
 * A failed call. `permanent`: the tracker refused the request itself (400, 404, 410, 422), which no
 * retry changes; anything else (5xx, 408, 429, 401/403 until an operator fixes the token, a timeout, a
 * refused connection) is worth retrying.
 */
export class TrackerError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'TrackerError';
  }
}

/** How many pages of 100 a look-up reads at most (it only looks at what changed since the attempt). */
const MAX_PAGES = 10;

export function githubCompatibleTracker(config: { url: string; repo: string; token: string }, timeoutMs = 10_000): IssueTracker {
  const base = `${config.url}/repos/${config.repo}`;
  const headers = {
    authorization: `Bearer ${config.token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': 'cloud-provisioning-support-forwarder',
  };

  const call = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ json: unknown; next: string | null }> => {
    const what = `${method} ${new URL(url).pathname}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      throw new TrackerError(`tracker ${what} failed: ${err instanceof Error ? err.message : String(err)}`, null, false);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new TrackerError(`tracker ${what} answered ${res.status}`, res.status, httpRefusalIsPermanent(res.status));
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      throw new TrackerError(`tracker ${what} answered ${res.status} with a body that is not JSON`, res.status, false);
    }
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
    return { json, next: next && next.startsWith(config.url) ? next : null };
  };

  const created = (json: unknown, field: 'number' | 'id', what: string): number => {
    const value = (json as Record<string, unknown> | null)?.[field];
    if (typeof value !== 'number') throw new TrackerError(`tracker ${what} answered without its ${field}`, null, false);
    return value;
  };

  const find = async (first: string, marker: string, field: 'number' | 'id'): Promise<number | null> => {
    let url: string | null = first;
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const { json, next } = await call('GET', url);
      for (const item of Array.isArray(json) ? (json as Array<Record<string, unknown>>) : []) {
        if (typeof item.body === 'string' && item.body.includes(marker) && typeof item[field] === 'number') return item[field] as number;
      }
      url = next;
    }
    return null;
  };

  return {
    async createIssue(issue) {
      return { number: created((await call('POST', `${base}/issues`, issue)).json, 'number', 'issue create') };
    },
    async comment(issueNumber, body) {
      return { id: created((await call('POST', `${base}/issues/${issueNumber}/comments`, { body })).json, 'id', 'comment create') };
    },
    findIssue(marker, since) {
      return find(`${base}/issues?state=all&since=${encodeURIComponent(since)}&per_page=100`, marker, 'number');
    },
    findComment(issueNumber, marker, since) {
      return find(`${base}/issues/${issueNumber}/comments?since=${encodeURIComponent(since)}&per_page=100`, marker, 'id');
    },
  };
}
