import { useState } from 'preact/hooks';
import { api, type Resource } from './api';
import { when } from './ui';

interface Opened {
  id: string;
  url: string;
  expiresAt: string;
}

/**
 * Console sessions (DECISIONS 23) of instances and servers: `open(id)` asks for one (through the
 * page's `run`, so its error shows where the page's action errors do); `<ConsoleLink>` shows the
 * one-time URL the API answers with.
 */
export function useConsoleSession(collection: 'instances' | 'servers', run: (call: () => Promise<unknown>) => Promise<boolean>) {
  const [opened, setOpened] = useState<Opened>();
  const open = (id: string) =>
    run(async () => {
      const res = await api.post<{ data: Resource<{ url: string; expiresAt: string }> }>(`/v1/${collection}/${encodeURIComponent(id)}/console`);
      setOpened({ id, url: res.data.attributes.url, expiresAt: res.data.attributes.expiresAt });
    });
  return { opened, open };
}

/**
 * The opened session's link while its resource is active in the live list (`rows`): once the list
 * shows it otherwise (stopped, powered off), the API has closed the session, and the link goes.
 */
export function ConsoleLink({ opened, rows }: { opened: Opened | undefined; rows: Array<Resource<{ status: string }>> }) {
  if (!opened) return null;
  const status = rows.find((r) => r.id === opened.id)?.attributes.status;
  if (status !== undefined && status !== 'active')
    return (
      <p class="notice" role="status">
        Console session of <code>{opened.id}</code> closed: it is {status}.
      </p>
    );
  return (
    <div class="notice" role="status">
      <p>
        Console session opened for <code>{opened.id}</code> (expires {when(opened.expiresAt)}). The link is shown once:
      </p>
      <p>
        <a class="console-link" href={opened.url} target="_blank" rel="noopener noreferrer">
          Open the console
        </a>
      </p>
    </div>
  );
}
