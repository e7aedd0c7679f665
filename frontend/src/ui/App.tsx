// Layout: navigation, the status bar, banners and the current screen.

import { store } from '../state/app';
import { useStore } from '../state/store';
import { Connect } from '../connect/Connect';
import { Policy } from '../policy/Policy';
import { SessionDetail } from '../sessions/SessionDetail';
import { Sessions } from '../sessions/Sessions';
import { Timeline } from '../timeline/Timeline';
import { Announcer } from './Announcer';
import { Approvals } from './Approvals';
import { Banner } from './Banner';
import { Login } from './Login';
import { StatusBar } from './StatusBar';
import { href, useRoute, type Screen } from './router';
import { plural } from '../lib/format';

const NAV: { screen: Screen; label: string }[] = [
  { screen: 'approvals', label: 'Approvals' },
  { screen: 'timeline', label: 'Timeline' },
  { screen: 'sessions', label: 'Sessions' },
  { screen: 'policy', label: 'Policy' },
  { screen: 'connect', label: 'Connect' },
];

export function App() {
  const auth = useStore(store, (s) => s.auth.kind);
  const expired = useStore(store, (s) => s.auth.kind === 'missing' && s.auth.expired === true);
  const linkUsed = useStore(store, (s) => s.auth.kind === 'missing' && s.auth.linkUsed === true);
  const pending = useStore(store, (s) => s.approvals.length);
  const route = useRoute();

  if (auth === 'missing') return <Login expired={expired} linkUsed={linkUsed} />;
  if (auth === 'link') return <Login signingIn />;

  return (
    <div class="app">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('approvals')} aria-label="Gatehouse, approvals">
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path d="M4 21V9l8-6 8 6v12h-5v-7H9v7z" fill="currentColor" />
          </svg>
          Gatehouse
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => (
              <li key={n.screen}>
                <a href={href(n.screen)} aria-current={route.screen === n.screen ? 'page' : undefined}>
                  {n.label}
                  {n.screen === 'approvals' && pending > 0 && (
                    <span class="nav-count" aria-label={`${pending} pending`}>
                      {pending}
                    </span>
                  )}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <StatusBar />
      </header>
      <Banner />
      {pending > 0 && route.screen !== 'approvals' && (
        <a class="pending-strip" href={href('approvals')}>
          {pending === 1 ? 'An agent is waiting for your approval' : `${plural(pending, 'agent call')} are waiting for your approval`} — review now
        </a>
      )}
      <main id="main" tabIndex={-1}>
        <CurrentScreen screen={route.screen} arg={route.arg} />
      </main>
      <Announcer />
    </div>
  );
}

function CurrentScreen({ screen, arg }: { screen: Screen; arg: string }) {
  switch (screen) {
    case 'approvals':
      return <Approvals />;
    case 'timeline':
      // Keyed: following a link to another filter starts a fresh view.
      return <Timeline key={arg} arg={arg} />;
    case 'sessions':
      return arg ? <SessionDetail id={arg} /> : <Sessions />;
    case 'policy':
      return <Policy />;
    case 'connect':
      return <Connect />;
  }
}
