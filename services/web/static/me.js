// "You": play under your own name. Sign up (a name; the service answers an API key, shown once and kept in this
// browser) or sign in with a key you hold; then seats you take are linked to your name (rated seats reserved for
// you open), your name shows in the lobby, at the table, in replays and on the ladder.
import { identity } from './api.js';
import { el, clear } from './dom.js';
import { notify } from './notice.js';

export function showIdentity() {  // the header's link: your name, or "Sign in"
  const link = document.getElementById('whoami');
  if (!link) return;
  const me = identity.get();
  link.textContent = me ? me.name : 'Sign in';
  link.title = me ? `Signed in as ${me.name}` : 'Play under your own name';
}

export function mePage(root) {
  const me = identity.get();
  if (me) {
    const keyBox = el('code', { id: 'my-key', hidden: true }, me.key);
    clear(root, el('h1', {}, `You are ${me.name}`), el('div', { class: 'panel' },
      el('p', {}, 'Seats you take in this browser are linked to your name, and seats reserved for you (rated matches, the arena) open to you. ',
        el('a', { href: `#/ladder` }, 'The ladder'), ' shows your rated matches.'),
      el('p', {}, 'Your API key lets bots and other browsers play as you. Keep it secret: ',
        el('button', { type: 'button', id: 'show-key', onclick: () => { keyBox.hidden = !keyBox.hidden; } }, 'show / hide it'), ' ', keyBox),
      el('p', {}, el('button', { type: 'button', id: 'sign-out', onclick: () => { identity.signOut(); showIdentity(); mePage(root); } },
        'Sign out of this browser'), ' (keep your key first: the service shows it only once).')));
    return null;
  }
  const name = el('input', { id: 'name', name: 'name', required: true, pattern: '[A-Za-z][A-Za-z0-9_\\-]{1,31}', autocomplete: 'username', 'aria-describedby': 'name-help' });
  const key = el('input', { id: 'key', name: 'key', required: true, pattern: 'ak_[0-9a-f]{48}', autocomplete: 'off', 'aria-label': 'API key' });
  const signUp = el('form', { class: 'panel', id: 'sign-up' }, el('h2', {}, 'New here: choose a name'),
    el('label', {}, 'Name ', name), el('p', { class: 'muted', id: 'name-help' }, '2 to 32 letters, digits, _ or -, a letter first. Names are kept for good.'),
    el('button', { type: 'submit', class: 'primary' }, 'Sign up'));
  const signIn = el('form', { class: 'panel', id: 'sign-in' }, el('h2', {}, 'Have a key: sign in'),
    el('label', {}, 'API key ', key), el('button', { type: 'submit' }, 'Sign in'));
  const done = (who) => { showIdentity(); notify(`Signed in as ${who}.`, [['Back to the lobby', '#/']], 'info'); mePage(root); };
  signUp.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try { done((await identity.signUp(name.value)).name); } catch (e) { notify(`Not signed up: ${e.detail || e.message}`); }
  });
  signIn.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    try { done((await identity.signIn(key.value.trim())).name); } catch (e) { notify(`Not signed in: ${e.detail || e.message}`); }
  });
  clear(root, el('h1', {}, 'Play under your own name'), el('div', { class: 'lobby' }, signUp, signIn));
  return null;
}
