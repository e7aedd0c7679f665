// A fixed-row-height virtual list: only visible rows (plus overscan) are in
// the DOM, whatever the count. The parent owns the scroll element so it can
// keep the view anchored when rows are inserted above.

import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { listWindow } from '../lib/virtual';

export interface VirtualListProps {
  count: number;
  rowHeight: number;
  scrollRef: RefObject<HTMLDivElement>;
  renderRow(index: number): ComponentChildren;
  onRange(start: number, end: number): void;
  /** ARIA: the list box label and the active row's element id. */
  label: string;
  /** listbox (flat rows) or tree (rows that unfold). */
  role?: 'listbox' | 'tree';
  activeId?: string | undefined;
  onKeyDown?(e: KeyboardEvent): void;
  overscan?: number;
}

export function VirtualList(p: VirtualListProps) {
  const [view, setView] = useState({ top: 0, height: 0 });

  useLayoutEffect(() => {
    const el = p.scrollRef.current;
    if (!el) return;
    let frame = 0;
    const read = () => {
      frame = 0;
      setView({ top: el.scrollTop, height: el.clientHeight });
    };
    // One state update per frame however fast the wheel spins.
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(read);
    };
    read();
    el.addEventListener('scroll', onScroll, { passive: true });
    const ro = new ResizeObserver(onScroll);
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [p.scrollRef]);

  const w = listWindow({ count: p.count, rowHeight: p.rowHeight, scrollTop: view.top, viewportHeight: view.height || 600, overscan: p.overscan ?? 8 });

  useEffect(() => {
    p.onRange(w.start, w.end);
  });

  const rows: ComponentChildren[] = [];
  for (let i = w.start; i < w.end; i++) rows.push(p.renderRow(i));

  return (
    <div
      class="vlist"
      ref={p.scrollRef}
      tabIndex={0}
      role={p.role ?? 'listbox'}
      aria-label={p.label}
      aria-activedescendant={p.activeId}
      onKeyDown={p.onKeyDown}
    >
      <div class="vlist-inner" style={{ height: `${w.totalHeight}px` }}>
        <div class="vlist-rows" style={{ transform: `translateY(${w.offsetY}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
