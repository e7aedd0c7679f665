// Shapes of the control API (backend/api). Optional fields are the ones the
// daemon omits when empty.

import type { Tally } from '../lib/outcome';

export interface DaemonState {
  paused: boolean;
  killed: boolean;
  active_sessions: number;
}

/** Whether checkpoints work; when not, new calls have no undo. */
export interface CheckpointHealth {
  ok: boolean;
  problem?: string;
  since?: string;
}

export interface Status {
  state: DaemonState;
  checkpoints?: CheckpointHealth;
  sandbox?: string;
  version?: string;
  listen?: string;
  workspaces?: string[];
  pending_approvals?: number;
  pid?: number;
}

export type Mode = 'plan' | 'ask' | 'auto' | 'accept-edits' | 'unattended';
export const MODES: readonly Mode[] = ['plan', 'ask', 'auto', 'accept-edits', 'unattended'];

/** How a session's client reaches the daemon. */
export type Transport = 'stdio' | 'hook' | 'http' | 'http-stateless';

export interface Session {
  id: string;
  client: string;
  client_name: string;
  client_version: string;
  transport: Transport | string;
  workspaces: string[] | null;
  mode: Mode;
  started_at: string;
  ended_at?: string;
  status: 'active' | 'ended' | 'killed';
  end_reason?: string;
  /** The agent run the session belongs to ("claude:<id>"). */
  run?: string;
  /** What the person asked the agent to do. */
  goal?: string;
  /** Live, but its client has not been heard from for a while. */
  idle?: boolean;
  /** The agent itself, and all it started, ran in a sandbox (`gatehouse run`); absent from older daemons. */
  confined?: boolean;
  calls: number;
  /** The policy let it run without asking (an older total). */
  allowed: number;
  /** Calls that waited for the person; each is also counted by its outcome. */
  asked: number;
  /** Refused by the person or policy, before or after it ran (an older total). */
  denied: number;
  /** Failed, refused or stopped (an older total). */
  errors: number;
  output_bytes: number;
  cpu_ms: number;
  /** Each ended call counted once, by how it ended; absent from older daemons. */
  outcomes?: Tally;
  /** What the agent's own files say it spent (one session's page only). */
  tokens?: TokenUsage;
}

/** An agent run's tokens as the agent recorded them, or why unknown. */
export interface TokenUsage {
  known: boolean;
  why?: string;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cost_usd?: number;
}

export interface AuditEvent {
  seq: number;
  time: string;
  session: string;
  call_id: string;
  kind: string;
  actor: string;
  payload: Record<string, unknown> | null;
  prev_hash: string;
  hash: string;
}

export interface EventPage {
  events: AuditEvent[];
  next_after: number;
}

export interface Risk {
  kind: string;
  detail: string;
}

export type ApprovalKind = 'call' | 'question' | 'limit' | 'network' | 'effect' | 'workspace';

/** One path a staged command changed (effect cards). */
export interface Change {
  path: string;
  op: 'create' | 'modify' | 'delete';
  kind: 'file' | 'dir' | 'symlink' | 'special' | string;
  mode?: string;
  old_mode?: string;
  size?: number;
  target?: string;
  mode_only?: boolean;
}

/** A changed path the person also changed meanwhile. */
export interface ConflictNote {
  path: string;
  why: string;
}

export interface ApprovalRequest {
  id: string;
  kind: ApprovalKind;
  session: string;
  call_id: string;
  actor: string;
  tool: string;
  args?: Record<string, unknown>;
  argv?: string[];
  binary?: string;
  paths?: string[];
  url?: string;
  domain?: string;
  port?: number;
  changes?: Change[];
  /** Effect cards: the workspace is untouched until Apply (false: the run was checked after the fact). */
  staged?: boolean;
  findings?: string[];
  conflicts?: ConflictNote[];
  diff?: string;
  question?: string;
  reason: string;
  rule: string;
  risks?: Risk[];
  always_rule?: string;
  /** "Always" on a card with no rule to write: what it keeps instead. */
  always_note?: string;
  session_rule?: string;
  cwd?: string;
  /** "hook": the agent's own tool (native names it); empty for Gatehouse's MCP tools. */
  via?: string;
  native?: string;
  /** "For this session" would reach other runs of the client: not offered. */
  no_session_scope?: boolean;
  goal?: string;
  created_at: string;
  expires_at: string;
}

/** The body of POST /api/v1/approvals/{id}. */
export interface DecisionBody {
  decision: Decision;
  scope: Scope;
  message: string;
  /** The always rule as edited on the card. */
  rule?: string;
  /** Effect cards: conflicting paths to take from the staged run. */
  staged?: string[];
}

export type Decision = 'allow' | 'deny';
export type Scope = 'once' | 'session' | 'always';

export interface NotRestorable {
  root?: string;
  path: string;
  size?: number;
  kind?: string;
  detail?: string;
}

export interface Checkpoint {
  id: string;
  session: string;
  call_id: string;
  phase: 'pre' | 'post';
  time: string;
  stats?: { files: number; bytes: number };
  not_restorable?: (NotRestorable | string)[] | null;
}

/** A path the rollback leaves alone or must overwrite (conflict, external edit). */
export type Held = string | { root?: string; path: string; calls?: string[]; forced?: boolean };

/** The grouped view of a rollback plan the UI shows. */
export interface RollbackSummary {
  restore: string[];
  delete: string[];
  recreate: string[];
  conflicts: Held[];
  external_edits: Held[];
  diff: string;
}

/** Reply of POST /rollback: `summary` is the grouped plan; older daemons put those fields on `plan`. */
export interface RollbackReply {
  plan: Partial<RollbackSummary> & { id?: string };
  summary?: Partial<RollbackSummary>;
  applied: boolean;
  /** Once applied: the checkpoints taken around the rollback itself (before: the workspace just before it). */
  result?: { plan_id?: string; before?: string; after?: string };
}

export interface RollbackRequest {
  checkpoint?: string;
  call?: string;
  dry_run: boolean;
  force: boolean;
}

/** The step of the policy that applies a rule, in the order they apply. */
export type Stage = 'always' | 'managed' | 'user' | 'baseline' | 'risk' | 'workspace' | 'mode';

export interface PolicyRule {
  id: string;
  action: string;
  stage?: Stage;
  ports?: number[];
  tool?: string | string[];
  binary?: string | string[];
  args?: string[] | string;
  paths?: string | string[];
  domains?: string | string[];
  reason?: string;
  source: string;
  file?: string;
  line?: number;
}

export interface PolicyDoc {
  file: string;
  text: string;
  /** In the order they are applied. */
  rules: PolicyRule[];
  /** The mode the rules are listed for (the daemon's default). */
  mode?: string;
  notices: unknown[] | null;
}

export interface PolicyTestRequest {
  tool: string;
  argv?: string[];
  path?: string;
  url?: string;
  mode: Mode;
}

export interface PolicyVerdict {
  verdict: 'allow' | 'ask' | 'deny';
  reason: string;
  rule?: Partial<PolicyRule> | null;
  risks?: Risk[] | null;
}

export interface ConnectInfo {
  mcp_url: string;
  agent_token: string;
  bridge_command: string;
  data_dir: string;
}

export interface AgentToken {
  id: string;
  kind: string;
  name: string;
  created_at: string;
  revoked_at?: string;
}

export interface NewToken {
  id: string;
  name: string;
  token: string;
}

/** One scope's wiring of an agent (GET /api/v1/agents). */
export interface AgentScopeStatus {
  agent: string;
  scope: 'user' | 'system';
  wired: boolean;
  files: string[];
  recorded: boolean;
}

export interface AgentStatus {
  name: string;
  title: string;
  installed: boolean;
  scope?: 'user' | 'system';
  where: string[];
  user: AgentScopeStatus;
  system: AgentScopeStatus;
}

/** What POST /api/v1/agents/{name}/install|uninstall did. */
export interface AgentResult {
  agent: string;
  scope: 'user' | 'system';
  changes: { path: string; outcome: 'unchanged' | 'created' | 'written' | 'restored' | 'removed' | 'stripped' }[];
}

/** An open exposure (GET /api/v1/exposures): never its token. */
export interface Exposure {
  id: string;
  listen: string;
  url: string;
  tls: boolean;
  fingerprint?: string;
  tunnel?: { command: string[]; pid: number; url?: string; note?: string };
  opened: string;
  expires: string;
  devices: number;
  decisions: number;
}

/** What POST /api/v1/exposures answers, once: the link with its token. */
export interface OpenedExposure extends Exposure {
  link: string;
  qr_svg: string;
}

/** What reaches the daemon that Gatehouse does not control. */
export interface Suspected {
  relayed?: { at: string; headers: string[]; method: string; path: string; from: string; count: number };
  processes: { pid: number; command: string; exe?: string; from: string }[];
}

export interface ExposuresReply {
  exposures: Exposure[];
  suspected: Suspected;
}
