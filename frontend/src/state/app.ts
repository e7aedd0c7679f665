// The app's shared state and the actions that change it. Screens read the
// store; the live feed keeps it current.

import { ApiClient, ApiError, query } from '../api/client';
import { EventFeed, type FeedState } from '../api/feed';
import { browserEnv, forgetToken, redeemLink, takeToken, type Auth } from '../api/token';
import type { ApprovalRequest, AuditEvent, DecisionBody, EventPage, Session, Status } from '../api/types';
import { cardSummary } from '../lib/cardtext';
import { goneNote, refusal, WITHDRAWN_NOTE, type Refusal } from '../lib/decision';
import { backoffMs, sleep } from '../lib/backoff';
import { createStore, Emitter } from './store';

export interface Notice {
  id: number;
  message: string;
  tone: 'error' | 'info';
}

export interface AppState {
  auth: Auth;
  conn: FeedState;
  status: Status | null;
  /** Pending approvals, oldest first. */
  approvals: ApprovalRequest[];
  approvalTimeoutS: number;
  notices: Notice[];
  /** Highest audit seq seen. */
  newestSeq: number;
  booted: boolean;
  /** Session id → client name, to say who is asking on approval cards. */
  clients: Record<string, string>;
  /** Why cards went away that the person did not decide here. */
  cardNotes: CardNote[];
}

/** A card that went away without the person deciding it here. */
export interface CardNote {
  id: number;
  approval: string;
  /** "withdrawn: the agent cancelled the call" */
  text: string;
  /** What the card was about, e.g. "claude: run_command sh -c …". */
  what: string;
}

/** When a live approval.requested arrived, for the latency metric. */
export interface Arrival {
  receivedAt: number; // performance.now()
  eventTime: number; // epoch ms of the audit event
}

const env = browserEnv();

export const store = createStore<AppState>({
  auth: takeToken(env),
  conn: 'connecting',
  status: null,
  approvals: [],
  approvalTimeoutS: 120,
  notices: [],
  newestSeq: 0,
  booted: false,
  clients: {},
  cardNotes: [],
});

export const api = new ApiClient({
  token: () => {
    const a = store.get().auth;
    return a.kind === 'token' ? a.token : null;
  },
  onUnauthorized: () => {
    if (store.get().auth.kind !== 'token') return;
    forgetToken(env);
    feed?.stop();
    store.set({ auth: { kind: 'missing', expired: true }, booted: false });
  },
});

/** Every live audit event batch, for the timeline and session views. */
export const liveEvents = new Emitter<AuditEvent[]>();

// The newest events, kept so the timeline opens with rows already in hand.
const RECENT = 300;
let recent: AuditEvent[] = [];
export function recentEvents(): readonly AuditEvent[] {
  return recent;
}
function remember(batch: AuditEvent[]): void {
  recent = recent.concat(batch);
  if (recent.length > RECENT) recent = recent.slice(-RECENT);
}
export const arrivals = new Map<string, Arrival>();

let feed: EventFeed | null = null;
let noticeSeq = 0;

export function notify(message: string, tone: Notice['tone'] = 'error'): void {
  store.set((s) => {
    // The same sentence twice is one banner, not a stack.
    if (s.notices.some((n) => n.message === message)) return {};
    return { notices: [...s.notices.slice(-3), { id: ++noticeSeq, message, tone }] };
  });
}

export function dismiss(id: number): void {
  store.set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
}

const NOTE_MS = 8000;
let noteSeq = 0;

/** Says, for a while, why a card went away. */
export function noteCard(req: ApprovalRequest, text: string): void {
  const note: CardNote = { id: ++noteSeq, approval: req.id, text, what: cardSummary(req, store.get().clients[req.session] ?? '') };
  store.set((s) => ({ cardNotes: [...s.cardNotes.filter((n) => n.approval !== req.id).slice(-4), note] }));
  setTimeout(() => dismissNote(note.id), NOTE_MS);
}

export function dismissNote(id: number): void {
  store.set((s) => (s.cardNotes.some((n) => n.id === id) ? { cardNotes: s.cardNotes.filter((n) => n.id !== id) } : {}));
}

/** Reports a failed action in the banner; unreachable-daemon errors show as "Reconnecting…" instead. */
export function reportError(err: unknown): void {
  if (err instanceof DOMException && err.name === 'AbortError') return;
  if (err instanceof ApiError && err.status === 401) return; // the login screen says it
  notify(err instanceof Error ? err.message : String(err));
}

export async function refreshStatus(): Promise<void> {
  try {
    store.set({ status: await api.get<Status>('/api/v1/status') });
  } catch (err) {
    if (!(err instanceof ApiError && err.unreachable)) reportError(err);
  }
}

// approvalsVersion counts changes the live feed made to the approval list.
// A list fetched while it moved may predate an event already applied (a
// card would vanish), so such an answer is fetched again instead.
let approvalsVersion = 0;

export async function refreshApprovals(): Promise<void> {
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = approvalsVersion;
      const r = await api.get<{ approvals: ApprovalRequest[]; timeout_s: number }>('/api/v1/approvals');
      if (before !== approvalsVersion) continue;
      store.set({ approvals: sortApprovals(r.approvals ?? []), approvalTimeoutS: r.timeout_s });
      return;
    }
    // The feed kept changing the list; what it applied is current.
  } catch (err) {
    if (!(err instanceof ApiError && err.unreachable)) reportError(err);
  }
}

async function refreshClients(): Promise<void> {
  try {
    const r = await api.get<{ sessions: Session[] }>('/api/v1/sessions?status=active&limit=1000');
    const clients: Record<string, string> = {};
    for (const s of r.sessions ?? []) clients[s.id] = s.client_name || s.client;
    store.set((s) => ({ clients: { ...s.clients, ...clients } }));
  } catch {
    // Names are a nicety; cards fall back to the actor.
  }
}

function sortApprovals(list: ApprovalRequest[]): ApprovalRequest[] {
  return [...list].sort((a, b) => a.created_at.localeCompare(b.created_at));
}

let statusTimer: ReturnType<typeof setTimeout> | undefined;
function refreshStatusSoon(): void {
  // Bursts of session/system events cost one status request.
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => void refreshStatus(), 150);
}

// Decisions under way from this page: their events need no note.
const deciding = new Set<string>();

// Checkpoint health changes with calls that change files; its banner
// follows at most once a second.
function checkpointRelevant(kind: string, p: Record<string, unknown>): boolean {
  if (kind === 'tool.refused' || kind === 'tool.error') return true;
  if (kind !== 'tool.result') return false;
  return p.is_error === true || typeof p.warning === 'string' || store.get().status?.checkpoints?.ok === false;
}

let statusThrottle: ReturnType<typeof setTimeout> | undefined;
function refreshStatusThrottled(): void {
  if (statusThrottle) return;
  statusThrottle = setTimeout(() => {
    statusThrottle = undefined;
    void refreshStatus();
  }, 1000);
}

function applyEvents(batch: AuditEvent[], receivedAt: number): void {
  let approvals = store.get().approvals;
  let changed = false;
  for (const e of batch) {
    const p = e.payload ?? {};
    switch (e.kind) {
      case 'approval.requested': {
        const req = p as unknown as ApprovalRequest;
        if (req.id && !approvals.some((a) => a.id === req.id)) {
          arrivals.set(req.id, { receivedAt, eventTime: Date.parse(e.time) });
          approvals = [...approvals, req];
          changed = true;
        }
        break;
      }
      case 'approval.decided':
      case 'approval.expired':
      case 'approval.withdrawn': {
        const id = typeof p.approval === 'string' ? p.approval : '';
        const req = approvals.find((a) => a.id === id);
        if (req) {
          approvals = approvals.filter((a) => a.id !== id);
          arrivals.delete(id);
          changed = true;
          // A card the person is deciding here is theirs; others say why they went.
          const note = deciding.has(id) ? null : goneNote(e.kind, p);
          if (note) noteCard(req, note);
        }
        break;
      }
      case 'session.start': {
        const name = String(p.client_name || p.client || '');
        if (name && e.session) store.set((s) => ({ clients: { ...s.clients, [e.session]: name } }));
        refreshStatusSoon();
        break;
      }
      default:
        if (e.kind.startsWith('system.') || e.kind.startsWith('session.')) refreshStatusSoon();
        else if (checkpointRelevant(e.kind, p)) refreshStatusThrottled();
    }
  }
  const newest = batch[batch.length - 1]?.seq ?? 0;
  if (changed) approvalsVersion++;
  store.set({ newestSeq: Math.max(store.get().newestSeq, newest), ...(changed ? { approvals: sortApprovals(approvals) } : {}) });
  remember(batch);
  liveEvents.emit(batch);
}

export async function boot(): Promise<void> {
  const auth = store.get().auth;
  if (auth.kind === 'link') store.set({ auth: await redeemLink(auth.code, env) });
  if (store.get().auth.kind === 'missing') return;
  feed?.stop();
  // Resume point first, then the snapshots: events between the two are
  // replayed by the stream and applied idempotently. Until the daemon answers
  // there is no resume point, so keep trying rather than replay all history.
  let after = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const page = await api.get<EventPage>('/api/v1/events' + query({ order: 'desc', limit: RECENT }));
      after = page.events[0]?.seq ?? 0;
      recent = page.events.reverse();
      break;
    } catch (err) {
      if (store.get().auth.kind === 'missing') return; // 401: the login screen took over
      if (err instanceof ApiError && err.unreachable) store.set({ conn: 'reconnecting' });
      else reportError(err);
      await sleep(backoffMs(attempt));
    }
  }
  store.set({ newestSeq: after });
  await Promise.all([refreshStatus(), refreshApprovals(), refreshClients()]);
  store.set({ booted: true });
  feed = new EventFeed(api, after, {
    events: applyEvents,
    state: (conn) => store.set({ conn }),
    reconnected: () => {
      void refreshStatus();
      void refreshApprovals();
      void refreshClients();
    },
  });
  feed.start();
}

/** Takes a #login=… or #token=… that arrived after load and (re)starts. */
export function signInFromUrl(): void {
  store.set({ auth: takeToken(env) });
  void boot();
}

export type DecideResult = { ok: true } | { ok: false; refusal: Refusal; message: string };

/**
 * Sends a decision. A withdrawn (410) or settled (404) card goes away with
 * a note; a 400 stays for the card to show; anything else is a banner.
 */
export async function decide(id: string, body: DecisionBody): Promise<DecideResult> {
  const req = store.get().approvals.find((a) => a.id === id);
  deciding.add(id);
  try {
    await api.post(`/api/v1/approvals/${encodeURIComponent(id)}`, body);
    // Drop the card now; the approval.decided event confirms it.
    store.set((s) => ({ approvals: s.approvals.filter((a) => a.id !== id) }));
    return { ok: true };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const why = err instanceof ApiError ? refusal(err.status) : 'failed';
    if (why === 'withdrawn' || why === 'gone') {
      store.set((s) => ({ approvals: s.approvals.filter((a) => a.id !== id) }));
      if (req) noteCard(req, why === 'withdrawn' ? WITHDRAWN_NOTE : 'already decided elsewhere, or expired');
    } else if (why === 'failed') reportError(err);
    return { ok: false, refusal: why, message };
  } finally {
    // The decided event may trail the reply a little.
    setTimeout(() => deciding.delete(id), 5000);
  }
}

/** Denies every card one session has waiting (a flood); the number denied. */
export async function denySession(session: string, message: string): Promise<number | null> {
  try {
    const r = await api.post<{ denied: number }>(`/api/v1/sessions/${encodeURIComponent(session)}/deny-pending`, { message });
    const mine = store.get().approvals.filter((a) => a.session === session).map((a) => a.id);
    for (const id of mine) deciding.add(id);
    setTimeout(() => mine.forEach((id) => deciding.delete(id)), 5000);
    store.set((s) => ({ approvals: s.approvals.filter((a) => a.session !== session || !deciding.has(a.id)) }));
    void refreshApprovals();
    return r.denied;
  } catch (err) {
    reportError(err);
    return null;
  }
}

async function switchState(path: 'kill' | 'pause' | 'resume', reason: string): Promise<void> {
  try {
    const r = await api.post<{ state: Status['state'] }>(`/api/v1/${path}`, { reason, via: 'ui' });
    store.set((s) => ({ status: s.status ? { ...s.status, state: r.state } : s.status }));
    if (path === 'kill') void refreshApprovals();
    refreshStatusSoon();
  } catch (err) {
    reportError(err);
  }
}

export const killAll = () => switchState('kill', 'stopped from the Gatehouse window');
export const pauseAll = () => switchState('pause', '');
export const resumeAll = () => switchState('resume', '');
