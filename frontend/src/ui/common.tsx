// Small building blocks used across screens.

import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'ok' | 'fail' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('ok');
    } catch {
      // Clipboard needs a secure context or permission; the text stays selectable.
      setDone('fail');
    }
    setTimeout(() => setDone(null), 1500);
  };
  return (
    <button type="button" class="btn small" onClick={copy} aria-live="polite">
      {done === 'ok' ? 'Copied' : done === 'fail' ? 'Select and copy' : label}
    </button>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

export function ErrorLine({ message }: { message: string }) {
  return (
    <p class="error-line" role="alert">
      {message}
    </p>
  );
}

export function Code({ text, label }: { text: string; label?: string }) {
  return (
    <div class="code">
      <pre tabIndex={0} aria-label={label}>{text}</pre>
      <CopyButton text={text} />
    </div>
  );
}

/**
 * Text that holds a secret (a token): masked until the person asks to see
 * it, so a screen share or a glance shows nothing; Copy copies the real text.
 */
export function SecretCode({ text, masked, label, class: cls = '' }: { text: string; masked: string; label?: string; class?: string }) {
  const [shown, setShown] = useState(false);
  return (
    <div class="code secret">
      <pre tabIndex={0} aria-label={label} class={cls} data-revealed={shown ? 'true' : 'false'}>
        {shown ? text : masked}
      </pre>
      <div class="code-actions">
        <button type="button" class="btn small" aria-pressed={shown} onClick={() => setShown((v) => !v)}>
          {shown ? 'Hide token' : 'Show token'}
        </button>
        <CopyButton text={text} label="Copy with token" />
      </div>
    </div>
  );
}

// TableHead is a table's header row: one column per name (with a class
// when the column needs one), and a last, visually hidden "Actions"
// column for the row's buttons when asked.
export function TableHead({ cols, actions = false }: { cols: (string | { name: string; class: string })[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {cols.map((c) => {
          const { name, class: cls } = typeof c === 'string' ? { name: c, class: undefined } : c;
          return (
            <th key={name} scope="col" class={cls}>
              {name}
            </th>
          );
        })}
        {actions && (
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

// ActionTable is a table whose rows (its children) end in a cell of
// buttons: TableHead with the hidden "Actions" column, then the rows.
export function ActionTable({ class: cls, cols, children }: { class: string; cols: string[]; children: ComponentChildren }) {
  return (
    <table class={cls}>
      <TableHead cols={cols} actions />
      <tbody>{children}</tbody>
    </table>
  );
}
