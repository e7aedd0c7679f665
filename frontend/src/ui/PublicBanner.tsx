// The warning about what reaches the daemon that Gatehouse does not
// control: a relayed request refused on the main listener, or a program
// (socat, ssh -R, a tunnel client) holding a connection to its port. Fed
// by GET /api/v1/exposures, checked every 15 seconds.

import { useEffect, useState } from 'preact/hooks';
import type { ExposuresReply } from '../api/types';
import { suspicions } from '../lib/exposures';
import { api } from '../state/app';

export function PublicBanner() {
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = async () => {
      try {
        const r = await api.get<ExposuresReply>('/api/v1/exposures');
        if (!stopped) setLines(suspicions(r.suspected));
      } catch {
        // An older daemon without exposures, or one that is down: the
        // connection banner says the latter.
      }
      if (!stopped) timer = setTimeout(check, 15_000);
    };
    void check();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return (
    <>
      {lines.map((l) => (
        <div key={l} class="banner warn public-suspected" role="alert">
          <span>{l}</span>
        </div>
      ))}
    </>
  );
}
