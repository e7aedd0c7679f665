import { describe, expect, it } from 'vitest';
import { ARM_MS, PlacementGuard } from './placement';

describe('PlacementGuard', () => {
  it('refuses a second click on a card that just moved under a resting pointer', () => {
    const g = new PlacementGuard();
    g.pointer(100, 300);
    g.observe('a', 200, 0);
    g.observe('b', 400, 0);
    // The person clicks a's button long after it arrived: accepted.
    expect(g.allows('a', 200, 5000)).toBe(true);
    // a is decided; b moves up to where a was. The double click's second
    // click comes 120 ms later at the same place (and a 0 px "move").
    g.keep(['b']);
    g.observe('b', 200, 5010);
    g.pointer(100, 300);
    expect(g.allows('b', 200, 5130)).toBe(false);
    // Still refused just under the arming delay, fine just after it.
    expect(g.allows('b', 200, 5010 + ARM_MS - 1)).toBe(false);
    expect(g.allows('b', 200, 5010 + ARM_MS)).toBe(true);
  });

  it('accepts a click once the pointer has travelled to the button', () => {
    const g = new PlacementGuard();
    g.pointer(0, 0);
    g.observe('b', 200, 1000);
    g.pointer(2, 1); // jitter
    expect(g.allows('b', 200, 1100)).toBe(false);
    g.pointer(40, 60);
    expect(g.allows('b', 200, 1150)).toBe(true);
  });

  it('notices a move at click time even if nothing reported it', () => {
    const g = new PlacementGuard();
    g.observe('b', 400, 0);
    expect(g.allows('b', 400, 2000)).toBe(true);
    // Layout moved b and the click arrived before any measurement.
    expect(g.allows('b', 200, 2010)).toBe(false);
  });

  it('a new card under the pointer is not armed at once', () => {
    const g = new PlacementGuard();
    g.pointer(10, 10);
    expect(g.allows('new', 100, 50)).toBe(false);
  });

  it('scrolling by the person moves the baseline without disarming', () => {
    const g = new PlacementGuard();
    g.observe('a', 500, 0);
    g.rebase('a', 300);
    expect(g.allows('a', 300, 1000)).toBe(true);
  });

  it('a small change (the card’s entry animation) is not a move', () => {
    const g = new PlacementGuard();
    g.observe('a', 96, 0);
    g.observe('a', 100.4, 900);
    expect(g.allows('a', 100, 900)).toBe(true);
  });
});
