// Rated play from the web (the ladder page): a signed-in person creates a rated match with the players they name
// (POST /ladder/{game}/matches, seat i kept for players[i]; they take their own seat at once, the others find
// "take your seat" in the lobby), or queues in the arena (POST /arena/{game}/queue, the ticket long-polled at its
// location until it is matched, then the seat's token kept like any other and the table opened; "leave the
// queue" and leaving the page take the ticket out). Bots take part the same way, with their API keys.
import { api, identity, join, tokens } from './api.js';
import { el } from './dom.js';
import { games as listGames, title } from './boards/index.js';

const WAIT_S = 10;

export function ratedPanel(game) {
  const me = identity.get();
  const panel = el('section', { class: 'panel rated', id: 'rated' }, el('h2', {}, `Play rated ${title(game)}`));
  if (!me) {
    panel.append(el('p', {}, el('a', { href: '#/me' }, 'Sign in'), ' to play rated matches: they count on this ladder under your name.'));
    return { node: panel, stop() {} };
  }
  let ticket = null;
  let stopped = false;
  const said = el('p', { id: 'rated-said', role: 'status', 'aria-live': 'polite' });
  const players = el('input', { type: 'text', id: 'rated-players', value: `${me.name}, `, size: 40, 'aria-label': 'players of the rated match, in seat order',
    placeholder: `${me.name}, another player, …` });
  const create = el('form', { id: 'rated-create', class: 'create' },
    el('label', {}, 'Players, in seat order (names, comma-separated; you among them): ', players),
    el('button', { type: 'submit', class: 'primary' }, `Create the rated match`));
  const counts = el('span', { class: 'seat-counts' });
  const queue = el('button', { type: 'button', id: 'arena-queue', class: 'primary' }, 'Queue for a rated match');
  const leave = el('button', { type: 'button', id: 'arena-leave', hidden: true }, 'Leave the queue');
  panel.append(el('p', { class: 'muted' }, `Signed in as ${me.name}. Rated matches are played on a clock; the ladder counts them.`),
    el('h3', {}, 'With players you name'), create,
    el('h3', {}, 'In the arena'), el('p', {}, 'Wait for other players, in a match of: ', counts), el('p', {}, queue, ' ', leave), said);
  listGames().then((listed) => {
    const info = listed.find((g) => g.name === game);
    if (!info) return;
    for (let n = info.min_seats; n <= info.max_seats; n += 1) {
      counts.append(el('label', {}, el('input', { type: 'checkbox', value: n, checked: true, 'aria-label': `${n} seats: queue for a rated match of ${n}` }), ` ${n} seats `));
    }
  }).catch(() => {});

  create.addEventListener('submit', async (e) => {
    e.preventDefault();
    const names = players.value.split(',').map((n) => n.trim()).filter(Boolean);
    const seat = names.indexOf(me.name);
    if (seat < 0) { said.textContent = 'Name yourself among the players: you may only create rated matches you play in.'; return; }
    try {
      const made = await api('POST', `/ladder/${encodeURIComponent(game)}/matches`, { body: { players: names }, apiKey: me.key });
      await join(made.match_id, seat);
      said.textContent = `Rated match ${made.match_id} created; the others take their seats from the lobby.`;
      location.hash = `#/match/${made.match_id}/seat/${seat}`;
    } catch (err) { said.textContent = `No rated match: ${err.detail || err.message}`; }
  });

  async function poll() {
    while (ticket && !stopped) {
      const held = ticket;
      let got;
      try {
        got = await api('GET', `${held.location}?wait_s=${WAIT_S}`, { apiKey: me.key });
      } catch (err) {
        if (ticket !== held) break;  // (left meanwhile: said so already)
        said.textContent = `You are out of the arena's queue: ${err.detail || err.message}`;
        ticket = null;
        break;
      }
      if (stopped || ticket !== held) return;
      if (got.status === 'matched' && got.token) {
        tokens.put(got.match_id, got.seat, got.token);
        ticket = null;
        said.textContent = `Matched: ${got.players.join(', ')}. Your seat is ${got.seat}.`;
        location.hash = `#/match/${got.match_id}/seat/${got.seat}`;
        return;
      }
      said.textContent = `Waiting in the arena's queue for ${got.seats.map((n) => `${n}`).join(' or ')} seats…`;
    }
    queue.hidden = false;
    leave.hidden = true;
  }

  queue.addEventListener('click', async () => {
    const seats = [...counts.querySelectorAll('input:checked')].map((c) => Number(c.value));
    if (!seats.length) { said.textContent = 'Tick at least one number of seats.'; return; }
    try {
      ticket = await api('POST', `/arena/${encodeURIComponent(game)}/queue`, { body: { seats }, apiKey: me.key });
      queue.hidden = true;
      leave.hidden = false;
      said.textContent = `In the arena's queue for ${seats.join(' or ')} seats…`;
      poll();
    } catch (err) { said.textContent = `Not queued: ${err.detail || err.message}`; }
  });

  async function out() {
    const held = ticket;
    ticket = null;
    if (held) await api('DELETE', held.location, { apiKey: me.key }).catch(() => {});
  }
  leave.addEventListener('click', async () => { await out(); said.textContent = 'You left the queue.'; queue.hidden = false; leave.hidden = true; });
  return { node: panel, stop() { stopped = true; out(); } };
}
