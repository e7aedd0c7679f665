// Shown in a browser tab that has no (or no longer a valid) control token,
// and while a login link is being traded for one.

export function Login({ expired = false, linkUsed = false, signingIn = false }: { expired?: boolean; linkUsed?: boolean; signingIn?: boolean }) {
  if (signingIn) {
    return (
      <main class="login" id="main">
        <h1>Gatehouse</h1>
        <p role="status">Signing in…</p>
      </main>
    );
  }
  return (
    <main class="login" id="main">
      <h1>Gatehouse</h1>
      {linkUsed && (
        <p class="notice warn" role="alert">
          This login link was already used or has expired: each link signs in one tab, once.
        </p>
      )}
      {expired && !linkUsed && (
        <p class="notice warn" role="alert">
          Your login has expired or was revoked (login links last 12 hours).
        </p>
      )}
      <p>This page needs a login link from your terminal. Run:</p>
      <pre class="cmd">gatehouse open</pre>
      <p>It opens this page with a one-time link that signs you in. The link stays valid only in this tab; closing the tab signs you out.</p>
      <p class="muted">Using the desktop app? Its window needs no link.</p>
    </main>
  );
}
