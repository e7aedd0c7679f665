import { render } from 'preact';
import './styles.css';
import './ui/cards.css';
import { boot, signInFromUrl, store } from './state/app';
import { metrics } from './state/metrics';
import { bindTitle } from './state/title';
import { App } from './ui/App';

metrics();
bindTitle(store, (s) => s.approvals.length);
render(<App />, document.getElementById('app')!);
void boot();
// A fresh login link pasted into this tab signs in again without a reload.
addEventListener('hashchange', () => {
  if (/(^#|&)(token|login)=/.test(location.hash)) signInFromUrl();
});
