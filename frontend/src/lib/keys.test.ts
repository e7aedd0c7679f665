import { describe, expect, it } from 'vitest';
import { keyEffect, type KeyInput } from './keys';

const k = (key: string, target: KeyInput['target'] = 'card', extra: Partial<KeyInput> = {}): KeyInput => ({ key, target, ...extra });

describe('keyEffect', () => {
  it('letters arm, Enter confirms what is armed', () => {
    expect(keyEffect(k('a'), null, 'call')).toEqual({ type: 'arm', action: 'once' });
    expect(keyEffect(k('s'), null, 'call')).toEqual({ type: 'arm', action: 'session' });
    expect(keyEffect(k('d'), null, 'call')).toEqual({ type: 'arm', action: 'deny' });
    expect(keyEffect(k('Enter'), 'session', 'call')).toEqual({ type: 'confirm', action: 'session' });
  });

  it('Enter with nothing armed does nothing (no accidental allow)', () => {
    expect(keyEffect(k('Enter'), null, 'call')).toBeNull();
  });

  it('Enter in the deny message box confirms the deny; Escape cancels', () => {
    expect(keyEffect(k('Enter', 'deny-message'), 'deny', 'call')).toEqual({ type: 'confirm', action: 'deny' });
    expect(keyEffect(k('Escape', 'deny-message'), 'deny', 'call')).toEqual({ type: 'cancel' });
    // Typing letters in the box is typing, not shortcuts.
    expect(keyEffect(k('a', 'deny-message'), 'deny', 'call')).toBeNull();
  });

  it('s arms nothing where "for this session" is not offered', () => {
    expect(keyEffect(k('s'), null, 'call', false)).toBeNull();
    expect(keyEffect(k('s'), null, 'effect')).toBeNull();
    expect(keyEffect(k('s'), null, 'limit')).toBeNull();
    expect(keyEffect(k('s'), null, 'network')).toEqual({ type: 'arm', action: 'session' });
    // Apply and Discard of an effect card are a and d.
    expect(keyEffect(k('a'), null, 'effect')).toEqual({ type: 'arm', action: 'once' });
    expect(keyEffect(k('d'), null, 'effect')).toEqual({ type: 'arm', action: 'deny' });
  });

  it('questions: a goes to the answer box, s is not offered, Enter answers', () => {
    expect(keyEffect(k('a'), null, 'question')).toEqual({ type: 'arm', action: 'answer' });
    expect(keyEffect(k('s'), null, 'question')).toBeNull();
    expect(keyEffect(k('Enter', 'answer'), 'answer', 'question')).toEqual({ type: 'confirm', action: 'answer' });
  });

  it('ignores modifiers, IME composition and other text fields', () => {
    expect(keyEffect(k('a', 'card', { ctrl: true }), null, 'call')).toBeNull();
    expect(keyEffect(k('a', 'card', { meta: true }), null, 'call')).toBeNull();
    expect(keyEffect(k('Enter', 'deny-message', { composing: true }), 'deny', 'call')).toBeNull();
    expect(keyEffect(k('d', 'other-text'), null, 'call')).toBeNull();
  });

  it('moves between cards with j/k and arrows', () => {
    expect(keyEffect(k('j'), null, 'call')).toEqual({ type: 'move', delta: 1 });
    expect(keyEffect(k('ArrowUp'), null, 'call')).toEqual({ type: 'move', delta: -1 });
  });

  it('Escape cancels only when something is armed', () => {
    expect(keyEffect(k('Escape'), 'once', 'call')).toEqual({ type: 'cancel' });
    expect(keyEffect(k('Escape'), null, 'call')).toBeNull();
  });
});
