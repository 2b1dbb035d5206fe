// The lobby: create a match (game, seats, options with their explanations), take a seat, give the empty
// seats to the service's bots, a time control (#29), and the open, running and finished matches (refreshed every
// few seconds).
import { api, createMatch, identity, join, tokens } from './api.js';
import { controlRules, controlText } from './clock.js';
import { el, clear, words, valueText } from './dom.js';
import { notify } from './notice.js';
import { games as listGames, title } from './boards/index.js';

const STRENGTHS = [['random', 'random bots (they play any legal move)'], ['heuristic', 'heuristic bots (a sensible player)'],
  ['ismcts', 'ISMCTS bots (they search; the strongest, and slower)']];

function optionInput(option) {
  const d = option.default;
  const name = `opt-${option.name}`;
  if (typeof d === 'boolean') return el('input', { type: 'checkbox', name, checked: d, 'data-option': option.name, 'data-kind': 'bool' });
  if (typeof d === 'number') return el('input', { type: 'number', name, value: d, 'data-option': option.name, 'data-kind': 'number' });
  return el('input', { type: 'text', name, value: d ?? '', 'data-option': option.name, 'data-kind': 'text' });
}

function problemText(e) { return e.detail || e.message || String(e); }

// The time control's fields (POST /matches `clock`): none, per move (seconds, timeouts in a row that forfeit) or a
// bank (seconds in all, plus an increment per move). explain: GET /games's descriptions of the fields.
function clockFields(explain) {
  const kind = el('select', { name: 'clock-kind', id: 'clock-kind' }, el('option', { value: 'none' }, 'no clock'),
    el('option', { value: 'move' }, 'a time per move'), el('option', { value: 'bank' }, 'a bank of time per player'));
  const seconds = el('input', { type: 'number', id: 'clock-seconds', name: 'clock-seconds', min: 0.1, step: 'any', value: 30 });
  const increment = el('input', { type: 'number', id: 'clock-increment', name: 'clock-increment', min: 0, step: 'any', value: 5 });
  const timeouts = el('input', { type: 'number', id: 'clock-timeouts', name: 'clock-timeouts', min: 1, max: 20, step: 1, value: 3 });
  const secondsLabel = el('span', {}, 'Seconds per move ');
  const said = el('span', { class: 'explain', id: 'clock-said' });
  const incrementRow = el('label', {}, 'Increment per move (s) ', increment, el('span', { class: 'explain' }, explain.increment || ''));
  const timeoutsRow = el('label', {}, 'Timeouts in a row that forfeit ', timeouts, el('span', { class: 'explain' }, explain.timeouts || ''));
  const secondsRow = el('label', {}, secondsLabel, seconds);
  let shown = 'move';
  const show = () => {
    const k = kind.value;
    if (k !== shown && k !== 'none') { seconds.value = k === 'bank' ? 300 : 30; shown = k; }  // a sensible start
    secondsRow.hidden = k === 'none';
    incrementRow.hidden = k !== 'bank';
    timeoutsRow.hidden = k !== 'move';
    secondsLabel.textContent = k === 'bank' ? 'Seconds in all, per player ' : 'Seconds per move ';
    said.textContent = k === 'none' ? 'Nobody is hurried; a match whose players stop moving ends after a while.'
      : `${controlRules(read())[0].toUpperCase()}${controlRules(read()).slice(1)}.`;
  };
  const read = () => (kind.value === 'none' ? { kind: 'none' } : {
    kind: kind.value, seconds: Number(seconds.value), increment: kind.value === 'bank' ? Number(increment.value) : 0,
    timeouts: kind.value === 'move' ? Number(timeouts.value) : 3 });
  for (const input of [kind, seconds, increment, timeouts]) input.addEventListener('input', show);
  kind.addEventListener('change', show);
  show();
  return { node: el('fieldset', { class: 'clock-fields', id: 'clock' }, el('legend', {}, 'Time control'),
    el('label', {}, 'Clock ', kind, said), secondsRow, incrementRow, timeoutsRow), read };
}

export function lobbyPage(root) {
  let games = [];
  let timer = null;
  let clock = null;  // the time control's fields
  const form = el('form', { class: 'create panel', id: 'create' });
  const lists = el('div', { id: 'lists' });
  clear(root, el('h1', {}, 'Lobby'), el('div', { class: 'lobby' }, form, lists));

  function drawForm() {
    const gameSelect = el('select', { name: 'game', id: 'game' }, games.map((g) => el('option', { value: g.name }, title(g.name))));
    const seatsInput = el('input', { type: 'number', name: 'seats', id: 'seats' });
    const options = el('div', { id: 'options' });
    const mySeat = el('select', { name: 'me', id: 'me' }, el('option', { value: 'first' }, 'I play (the first seat)'), el('option', { value: 'none' }, 'I only watch'));
    const others = el('select', { name: 'others', id: 'others' }, el('option', { value: 'people' }, 'people (they join from the lobby)'),
      STRENGTHS.map(([k, label]) => el('option', { value: k, selected: k === 'heuristic' }, label)));
    const reveal = el('input', { type: 'checkbox', name: 'reveal', id: 'reveal', checked: true });
    const explain = Object.fromEntries(((games[0] && games[0].clock) || []).map((f) => [f.name, f.description]));
    clock = clockFields(explain);
    const pick = () => {
      const g = games.find((x) => x.name === gameSelect.value);
      if (!g) return;
      seatsInput.min = g.min_seats; seatsInput.max = g.max_seats; seatsInput.value = Math.min(Math.max(3, g.min_seats), g.max_seats);
      clear(options, g.options.length ? g.options.map((o) => el('label', {}, `${words(o.name)} `, optionInput(o), el('span', { class: 'explain' }, o.description || ''))) : el('p', { class: 'muted' }, 'This game has no options.'));
    };
    gameSelect.addEventListener('change', pick);
    clear(form, el('h2', {}, 'New match'),
      el('label', {}, 'Game ', gameSelect),
      el('label', {}, 'Seats ', seatsInput),
      options,
      el('label', {}, 'You: ', mySeat),
      el('label', {}, 'The other seats: ', others),
      clock.node,
      el('label', {}, reveal, ' show the whole log once it ends', el('span', { class: 'explain' }, 'Every hidden card becomes visible in the replay (recommended; otherwise each seat replays only what it saw).')),
      el('button', { type: 'submit', class: 'primary', id: 'create-button' }, 'Create'));
    pick();
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const button = form.querySelector('#create-button');
    button.disabled = true;
    try {
      const options = {};
      for (const input of form.querySelectorAll('[data-option]')) {
        const kind = input.dataset.kind;
        options[input.dataset.option] = kind === 'bool' ? input.checked : kind === 'number' ? Number(input.value) : input.value;
      }
      const game = form.querySelector('#game').value;
      const me = identity.get();
      const match = await createMatch({ game, seats: Number(form.querySelector('#seats').value), options,
        reveal_log: form.querySelector('#reveal').checked, clock: clock.read() }, me ? me.key : null);
      let seat = null;
      if (form.querySelector('#me').value === 'first') seat = await join(match.match_id, null);
      const others = form.querySelector('#others').value;
      if (others !== 'people') await api('POST', `/matches/${match.match_id}/bots`, { body: { bot: others }, token: seat === null ? null : tokens.get(match.match_id, seat) });
      location.hash = seat === null ? `#/match/${match.match_id}/watch` : `#/match/${match.match_id}/seat/${seat}`;
    } catch (err) {
      notify(`The match could not be created: ${problemText(err)}`, [['Try again', () => { button.disabled = false; }]]);
    } finally {
      button.disabled = false;
    }
  });

  async function seatAction(match, seat) {
    try {
      const got = await join(match.match_id, seat);
      location.hash = `#/match/${match.match_id}/seat/${got}`;
    } catch (err) {
      notify(`Seat ${seat} could not be taken: ${problemText(err)}`, [['Back to the lobby', '#/']]);
      refresh();
    }
  }

  async function botsAction(match, select) {
    try {
      const mine = tokens.seats(match.match_id);
      await api('POST', `/matches/${match.match_id}/bots`, { body: { bot: select.value }, token: mine.length ? tokens.get(match.match_id, mine[0]) : null });
      refresh();
    } catch (err) {
      notify(`No bots for this match: ${problemText(err)}`);
    }
  }

  function seatChips(match) {
    const mine = tokens.seats(match.match_id);
    return el('span', { class: 'seatchips' }, Array.from({ length: match.seats }, (_, s) => {
      const bot = match.bots && match.bots[String(s)];
      const player = (match.players || {})[String(s)] || (match.reserved || {})[String(s)];  // a registered player's seat
      const free = match.seats_free.includes(s);
      const me = identity.get();
      if (mine.includes(s)) return el('a', { class: 'chip mine', href: `#/match/${match.match_id}/seat/${s}` }, `seat ${s}: you${player ? ` (${player})` : ''}`);
      if (player && free && match.status === 'open' && me && me.name === player) {  // a rated seat kept for me
        return el('button', { type: 'button', class: 'chip', 'data-join': s, onclick: () => seatAction(match, s) }, `take your seat ${s}`);
      }
      if (player) return el('span', { class: 'chip player', 'data-player': player }, `seat ${s}: ${player}${free && match.status === 'open' ? ' (waiting)' : ''}`);
      if (bot) return el('span', { class: 'chip bot', 'data-bot': bot }, `seat ${s}: ${bot} bot${free ? ' (waiting)' : ''}`);
      if (free && match.status === 'open') return el('button', { type: 'button', class: 'chip', 'data-join': s, onclick: () => seatAction(match, s) }, `take seat ${s}`);
      return el('span', { class: 'chip' }, `seat ${s}`);
    }));
  }

  function row(match) {
    const id = match.match_id;
    const ways = [];
    if (match.status === 'open') {
      const unflagged = match.seats_free.filter((s) => !(match.bots || {})[String(s)] && !(match.reserved || {})[String(s)]);
      const mayFill = tokens.seats(id).length > 0 || match.seats_free.length === match.seats;  // (a seated player's call)
      if (unflagged.length && mayFill) {
        const select = el('select', { 'aria-label': 'bot strength' }, STRENGTHS.map(([k]) => el('option', { value: k, selected: k === 'heuristic' }, k)));
        ways.push(el('span', {}, select, el('button', { type: 'button', class: 'fill-bots', onclick: () => botsAction(match, select) }, 'fill empty seats with bots')));
      }
      ways.push(el('a', { href: `#/match/${id}/watch` }, 'watch'));
    } else if (match.status === 'running') {
      ways.push(el('a', { href: `#/match/${id}/watch`, class: 'watch' }, 'watch'));
    } else {
      ways.push(el('a', { href: `#/match/${id}/replay`, class: 'replay' }, 'replay'), ' ', el('a', { href: `#/match/${id}/watch` }, 'final view'));
    }
    const opts = [...Object.entries(match.options || {}).map(([k, v]) => `${words(k)}: ${valueText(v)}`),
      ...(match.clock ? [`clock: ${controlText(match.clock)}`] : [])].join('; ');
    return el('tr', { 'data-match': id, 'data-status': match.status, 'data-game': match.game },
      el('td', {}, el('strong', {}, title(match.game)), el('div', { class: 'muted' }, id)),
      el('td', {}, seatChips(match)),
      el('td', {}, `v${match.version}`, el('div', { class: 'muted' }, opts)),
      el('td', {}, ways));
  }

  function table(caption, matches, empty) {
    return el('section', { class: 'panel', 'data-list': caption.toLowerCase().split(' ')[0] }, el('h2', {}, caption),
      matches.length ? el('table', { class: 'matches' }, el('tbody', {}, matches.map(row))) : el('p', { class: 'muted' }, empty));
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      await listGames().catch(() => []);  // the titles
      const [open, running, finished] = await Promise.all(['open', 'running', 'finished'].map((s) => api('GET', `/matches?status=${s}&limit=25`)));
      const withFree = open.matches.filter((m) => m.seats_free.length);
      clear(lists, table('Open matches (free seats)', withFree, 'No match waits for players: create one.'),
        table('Running matches', running.matches, 'Nothing is being played right now.'),
        table('Finished matches', finished.matches, 'No finished match yet.'));
    } catch (err) {
      notify(`The lobby could not be loaded: ${problemText(err)}`, [['Retry', refresh]]);
    }
    timer = setTimeout(refresh, 4000);
  }

  listGames().then((got) => { games = got; drawForm(); })
    .catch((err) => notify(`The games could not be loaded: ${problemText(err)}`, [['Reload', () => location.reload()]]));
  refresh();
  return () => clearTimeout(timer);
}
