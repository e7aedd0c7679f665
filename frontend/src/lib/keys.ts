// Keyboard handling for approval cards. A letter only arms an action and
// Enter runs it: a stray keystroke landing in this window must never by
// itself allow code to run.

import type { ApprovalKind } from '../api/types';

export type Armed = 'once' | 'session' | 'deny' | 'answer';

/** Where the key was typed. */
export type KeyTarget = 'card' | 'deny-message' | 'answer' | 'other-text';

export interface KeyInput {
  key: string;
  ctrl?: boolean;
  meta?: boolean;
  alt?: boolean;
  /** IME composition in progress: Enter belongs to the IME. */
  composing?: boolean;
  target: KeyTarget;
}

export type KeyEffect =
  | { type: 'arm'; action: Armed }
  | { type: 'confirm'; action: Armed }
  | { type: 'cancel' }
  | { type: 'move'; delta: 1 | -1 };

/**
 * session: whether the card offers "for this session" (not on effect,
 * limit or question cards, nor where the card says it would reach other
 * runs).
 */
export function keyEffect(input: KeyInput, armed: Armed | null, cardKind: ApprovalKind, session = cardKind === 'call' || cardKind === 'network'): KeyEffect | null {
  if (input.ctrl || input.meta || input.alt || input.composing) return null;
  switch (input.target) {
    case 'other-text':
      return null;
    case 'deny-message':
      if (input.key === 'Enter') return { type: 'confirm', action: 'deny' };
      if (input.key === 'Escape') return { type: 'cancel' };
      return null;
    case 'answer':
      if (input.key === 'Enter') return { type: 'confirm', action: 'answer' };
      if (input.key === 'Escape') return { type: 'cancel' };
      return null;
    case 'card':
      break;
  }
  switch (input.key) {
    case 'a':
    case 'A':
      // On a question, "allow" means answering it: go to the answer box.
      return { type: 'arm', action: cardKind === 'question' ? 'answer' : 'once' };
    case 's':
    case 'S':
      return cardKind === 'question' || !session ? null : { type: 'arm', action: 'session' };
    case 'd':
    case 'D':
      return { type: 'arm', action: 'deny' };
    case 'Enter':
      return armed ? { type: 'confirm', action: armed } : null;
    case 'Escape':
      return armed ? { type: 'cancel' } : null;
    case 'j':
    case 'ArrowDown':
      return { type: 'move', delta: 1 };
    case 'k':
    case 'ArrowUp':
      return { type: 'move', delta: -1 };
    default:
      return null;
  }
}

/** Classifies the event target for keyEffect. */
export function keyTarget(el: EventTarget | null): KeyTarget {
  if (!(el instanceof HTMLElement)) return 'card';
  const role = el.dataset.keyrole;
  if (role === 'deny-message') return 'deny-message';
  if (role === 'answer') return 'answer';
  if (el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return 'other-text';
  return 'card';
}
