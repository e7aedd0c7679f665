// The "confined" badge of a session whose whole agent ran in a sandbox,
// with what that means on hover and for screen readers.

import type { Session } from '../api/types';
import { confinedHelp } from '../lib/sessionview';

export function ConfinedBadge({ session }: { session: Pick<Session, 'confined' | 'status'> }) {
  const help = confinedHelp(session);
  if (!help) return null;
  return (
    <span class="badge confined" title={help} aria-description={help}>
      confined
    </span>
  );
}
