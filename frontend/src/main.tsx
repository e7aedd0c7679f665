import { render } from 'preact';
import './styles.css';
import { boot, signInFromUrl } from './state/app';
import { metrics } from './state/metrics';
import { App } from './ui/App';

metrics();
render(<App />, document.getElementById('app')!);
void boot();
// A fresh login link pasted into this tab signs in again without a reload.
addEventListener('hashchange', () => {
  if (/(^#|&)token=/.test(location.hash)) signInFromUrl();
});
