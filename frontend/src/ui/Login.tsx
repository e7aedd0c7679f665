// Shown in a browser tab that has no (or no longer a valid) control token.

export function Login({ expired }: { expired: boolean }) {
  return (
    <main class="login" id="main">
      <h1>Gatehouse</h1>
      {expired && (
        <p class="notice warn" role="alert">
          Your login has expired or was revoked (login links last 12 hours).
        </p>
      )}
      <p>This page needs the login link from your terminal. Run:</p>
      <pre class="cmd">gatehouse open</pre>
      <p>It opens this page with a one-time link that signs you in. The link stays valid only in this tab; closing the tab signs you out.</p>
      <p class="muted">Using the desktop app? Its window needs no link.</p>
    </main>
  );
}
