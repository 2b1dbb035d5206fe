// The message bar under the header: what went wrong and the ways on (buttons or links).
import { el, clear } from './dom.js';

export function notify(message, actions = [], kind = 'error') {
  const bar = document.getElementById('notice');
  clear(bar, el('span', { class: 'msg', id: 'notice-text' }, message),
    actions.map(([label, what]) => (typeof what === 'string' ? el('a', { href: what, class: 'action' }, label)
      : el('button', { type: 'button', class: 'action', onclick: what }, label))));
  bar.className = `notice ${kind}`;
  bar.dataset.kind = kind;
  bar.hidden = false;
}

export function unnotify() {
  const bar = document.getElementById('notice');
  bar.hidden = true;
  bar.replaceChildren();
}

export function connection(state, text) {
  const c = document.getElementById('conn');
  c.className = `conn ${state}`;
  c.textContent = text;
}
