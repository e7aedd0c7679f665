// An MCP client as an agent would be: Streamable HTTP with the agent token.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectAgent(daemon, name = 'e2e-agent') {
  const transport = new StreamableHTTPClientTransport(new URL(daemon.base + '/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.agent}` } },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    /** Calls a tool; waits up to 150 s (longer than the approval timeout). */
    call: (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 150_000, resetTimeoutOnProgress: true }),
    close: () => client.close().catch(() => {}),
  };
}

/** The text parts of a tool result, joined. */
export function resultText(r) {
  return (r?.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}
