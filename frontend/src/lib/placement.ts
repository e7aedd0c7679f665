// Keeps a click meant for one card from landing on another. When a card is
// decided (or withdrawn, or expires) the cards below it move up; a second
// click, or a click already on its way, would then hit the next card's
// button. A card's buttons accept a click only once the card has stayed
// where it is for ARM_MS, or once the pointer has travelled since it moved
// there: a person aiming at a button moves the pointer onto it; a double
// click or a resting pointer does not.

export const ARM_MS = 700;
export const MOVE_PX = 6;
// Smaller changes are not moves: a card's entry animation, rounding.
const SHIFT_PX = 8;

interface Spot {
  pos: number;
  since: number;
  travelAt: number;
}

export class PlacementGuard {
  private spots = new Map<string, Spot>();
  private travel = 0;
  private last: { x: number; y: number } | null = null;

  /** A pointer movement; only real distance counts (browsers send moves of 0 px after layout). */
  pointer(x: number, y: number): void {
    if (this.last) this.travel += Math.hypot(x - this.last.x, y - this.last.y);
    this.last = { x, y };
  }

  /** Records where a card is now (its top on screen); a change restarts its arming. */
  observe(id: string, pos: number, now: number): void {
    const s = this.spots.get(id);
    if (s && Math.abs(s.pos - pos) < SHIFT_PX) return;
    this.spots.set(id, { pos, since: now, travelAt: this.travel });
  }

  /** Moves every card's baseline without disarming (the person scrolled). */
  rebase(id: string, pos: number): void {
    const s = this.spots.get(id);
    if (s) s.pos = pos;
  }

  /** Drops cards that are gone. */
  keep(ids: Iterable<string>): void {
    const live = new Set(ids);
    for (const id of this.spots.keys()) if (!live.has(id)) this.spots.delete(id);
  }

  /** Whether a click on the card at pos, now, is meant for it. */
  allows(id: string, pos: number, now: number): boolean {
    this.observe(id, pos, now);
    const s = this.spots.get(id)!;
    return now - s.since >= ARM_MS || this.travel - s.travelAt >= MOVE_PX;
  }
}
