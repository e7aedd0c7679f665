// A network card: which command wants which domain and port.

import type { ApprovalRequest } from '../../api/types';
import { Vis } from '../Visible';
import { Argv, Cwd } from './CallDetails';

export function NetworkDetails({ req }: { req: ApprovalRequest }) {
  const prog = req.binary || req.argv?.[0] || 'A command';
  return (
    <div class="details network">
      <p class="net-ask">
        <code>
          <Vis text={prog} />
        </code>{' '}
        wants to connect to{' '}
        <strong class="domain">
          <Vis text={req.domain ?? '?'} />
        </strong>
        <span class="port">:{req.port ?? '?'}</span> through Gatehouse’s proxy. No rule allows that domain yet.
      </p>
      {req.argv && req.argv.length > 0 && <Argv argv={req.argv} label="The command that wants to connect" />}
      <Cwd req={req} />
    </div>
  );
}
