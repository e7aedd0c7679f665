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
