// Hash routes (#/timeline, #/sessions/s_1). The fragment is the only part
// of the URL the UI owns: the daemon serves one page at "/".

import { useEffect, useState } from 'preact/hooks';

export const SCREENS = ['approvals', 'timeline', 'sessions', 'policy', 'connect'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  screen: Screen;
  arg: string;
}

export function parseRoute(hash: string): Route {
  const [name = '', ...rest] = hash.replace(/^#\/?/, '').split('/');
  const screen = (SCREENS as readonly string[]).includes(name) ? (name as Screen) : 'approvals';
  return { screen, arg: decodeURIComponent(rest.join('/')) };
}

export function href(screen: Screen, arg = ''): string {
  // "=" and "&" stay readable: filter args look like "kind=tool.&q=git".
  return `#/${screen}${arg ? '/' + encodeURIComponent(arg).replace(/%3D/g, '=').replace(/%26/g, '&') : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

// syncHash writes want, a view's own state, as the URL's fragment while
// screen is still the one the fragment names: state written late (a
// debounced search) must not take back the person's move to another
// screen, which the browser reports only after the fragment changed.
export function syncHash(
  screen: Screen,
  want: string,
  loc: Pick<Location, 'hash'> = location,
  hist: Pick<History, 'replaceState'> = history,
): void {
  if (loc.hash === want || parseRoute(loc.hash).screen !== screen) return;
  hist.replaceState(null, '', want);
}
