// The replay's move list: every version of the log in words (the events as the public saw them, from
// GET /matches/{id}/log: the whole log once a match with reveal_log ends, `full`), with a mark where each turn (or
// round) begins; a click or Enter shows that version.
import { el, eventText } from './dom.js';

const TURN = /^(Turn|Round)Started$/;  // the games' turn marks: TurnStarted {turn}, RoundStarted {round}

const LONG = 140;  // a longer event is cut in the list (its whole text is its title)

export function moveList(events, pick, full = false) {
  const list = el('ol', { class: 'moves', id: 'moves', 'aria-label': 'moves' });
  const items = new Map();
  let marks = 0;
  const add = (version, text, cls = '') => {
    const button = el('button', { type: 'button', class: 'move', 'data-version': version, onclick: () => pick(version),
      title: text.length > LONG ? text : null }, el('span', { class: 'v' }, `${version}`), ` ${text.length > LONG ? `${text.slice(0, LONG - 1)}…` : text}`);
    const item = el('li', { class: cls }, button);
    items.set(version, button);
    list.append(item);
  };
  add(0, 'Set-up: before the first event');
  for (const event of events) {
    if (TURN.test(event.type)) {
      const n = event.body && (event.body.turn ?? event.body.round);
      marks += 1;
      list.append(el('li', { class: 'turn-mark', 'data-turn': n ?? marks }, `${event.type.startsWith('Round') ? 'Round' : 'Turn'} ${n ?? marks}`));
    }
    const { text } = eventText(full ? { ...event, visible_to: null } : event, null);  // (a public full log hides nothing)
    add(event.version, text, event.seat === null || event.seat === undefined ? 'game' : 'seat');
  }
  let current = null;
  return {
    node: el('div', { class: 'panel moves-panel' }, el('h2', {}, 'Moves'), list),
    show(version) {  // the version shown is marked, and scrolled into the list's view
      if (current) current.removeAttribute('aria-current');
      current = items.get(version) || null;
      if (current) {
        current.setAttribute('aria-current', 'step');
        const box = list.getBoundingClientRect();
        const at = current.getBoundingClientRect();
        if (at.top < box.top || at.bottom > box.bottom) list.scrollTop += at.top - box.top - box.height / 2;
      }
    },
  };
}
