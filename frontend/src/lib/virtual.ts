// Window math for a fixed-row-height virtual list. Browsers cap an element's
// height (about 33M px in Chrome, less elsewhere), so past MAX_SCROLL_PX the
// scrollbar is scaled: scroll position maps proportionally onto rows, while
// visible rows keep their exact pixel spacing.

export const MAX_SCROLL_PX = 8_000_000;

export interface WindowInput {
  count: number;
  rowHeight: number;
  scrollTop: number;
  viewportHeight: number;
  overscan: number;
  maxPx?: number;
}

export interface ListWindow {
  /** Height of the scrollable content. */
  totalHeight: number;
  /** First rendered row (inclusive). */
  start: number;
  /** Last rendered row (exclusive). */
  end: number;
  /** Content-space y of row `start`. */
  offsetY: number;
}

function geometry(count: number, rowHeight: number, viewportHeight: number, maxPx: number) {
  const real = count * rowHeight;
  const total = Math.min(real, maxPx);
  const realMax = Math.max(0, real - viewportHeight);
  const scrollMax = Math.max(0, total - viewportHeight);
  // ratio > 1 only when scaled.
  const ratio = scrollMax > 0 ? realMax / scrollMax : 1;
  return { total, ratio };
}

export function listWindow(i: WindowInput): ListWindow {
  const maxPx = i.maxPx ?? MAX_SCROLL_PX;
  if (i.count <= 0 || i.rowHeight <= 0) return { totalHeight: 0, start: 0, end: 0, offsetY: 0 };
  const { total, ratio } = geometry(i.count, i.rowHeight, i.viewportHeight, maxPx);
  const scrollTop = Math.min(Math.max(0, i.scrollTop), Math.max(0, total - i.viewportHeight));
  const realTop = scrollTop * ratio;
  const first = Math.min(i.count - 1, Math.floor(realTop / i.rowHeight));
  const visible = Math.ceil(i.viewportHeight / i.rowHeight) + 1;
  const start = Math.max(0, first - i.overscan);
  const end = Math.min(i.count, first + visible + i.overscan);
  return { totalHeight: total, start, end, offsetY: scrollTop + (start * i.rowHeight - realTop) };
}

/** scrollTop that puts row `index` at the top of the viewport. */
export function scrollTopFor(index: number, count: number, rowHeight: number, viewportHeight: number, maxPx = MAX_SCROLL_PX): number {
  const { ratio } = geometry(count, rowHeight, viewportHeight, maxPx);
  return (Math.max(0, Math.min(index, count - 1)) * rowHeight) / ratio;
}
