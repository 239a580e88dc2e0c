import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { gateway, session, settings } from './api';
import { SignIn } from './pages/signin';
import { Overview } from './pages/overview';
import { Instances } from './pages/instances';
import { Timeline, timelineOf } from './pages/timeline';
import { ApiKeys } from './pages/keys';
import { Events } from './pages/events';
import { Webhooks } from './pages/webhooks';
import { Invoices } from './pages/invoices';
import { Servers } from './pages/servers';
import { Gateway } from './pages/gateway';

/** Hash routes (`#/instances`), so the server serves one page and a reload keeps the place. */
function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || '/');
  useEffect(() => {
    const on = () => setRoute(location.hash.slice(1) || '/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/instances', 'Instances'],
  ['/servers', 'Servers'],
  ['/events', 'Event history'],
  ['/api-keys', 'API keys'],
  ['/webhooks', 'Webhooks'],
  ['/invoices', 'Invoices'],
  ['/gateway', 'Gateway'],
];

function Page({ route }: { route: string }) {
  const timeline = /^\/(\w+)\/([^/]+)$/.exec(route);
  if (timeline && timelineOf(timeline[1]!)) return <Timeline collection={timeline[1]!} id={decodeURIComponent(timeline[2]!)} />;
  switch (route) {
    case '/instances':
      return <Instances />;
    case '/events':
      return <Events />;
    case '/api-keys':
      return <ApiKeys />;
    case '/webhooks':
      return <Webhooks />;
    case '/invoices':
      return <Invoices />;
    case '/servers':
      return <Servers />;
    case '/gateway':
      return <Gateway />;
    default:
      return <Overview />;
  }
}

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(session.credential() !== null);
  const section = `/${route.split('/')[1]}`;
  const kind = route !== section ? timelineOf(section.slice(1)) : undefined;
  const title = NAV.find(([r]) => r === route)?.[1] ?? (kind ? `${kind.title} timeline` : 'Overview');
  useEffect(() => {
    document.title = signedIn ? `${title} · Cloud console` : 'Sign in · Cloud console';
  }, [title, signedIn]);
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  return (
    <>
      {/* The hash is the route: the skip link moves focus itself instead of changing it. */}
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Cloud console</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([r, label]) => (
              <li key={r}>
                <a href={`#${r}`} aria-current={r === route || (kind && r === section) ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="signout"
          onClick={() => {
            // The gateway session too (its cookie is HttpOnly: only the gateway can end it); best effort.
            if (settings.gatewayUrl) void gateway('DELETE', '/api/session').catch(() => undefined);
            session.signOut();
            location.hash = '#/';
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} key={route} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
