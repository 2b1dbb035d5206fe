// The table: a seat's own view (with its hand and its legal commands as controls) or, for a spectator, the
// public view; both live over the WebSocket, with the events in words. Only the seat's own subscription is
// used: the gateway sends a seat nothing of the others' hidden cards.
import { api, join, key, tokens, Live } from './api.js';
import { el, clear, eventText, outcomeText } from './dom.js';
import { notify, unnotify, connection } from './notice.js';
import { boardFor, title } from './boards/index.js';
import { controls } from './controls.js';

const MAX_EVENTS = 300;

export function tablePage(root, matchId, seat) {
  const playing = seat !== null;
  const token = playing ? tokens.get(matchId, seat) : null;
  const head = el('h1', {}, 'Match ', el('span', { class: 'muted' }, matchId));
  const status = el('div', { class: 'status', id: 'status', 'aria-live': 'polite' }, 'Connecting…');
  const board = el('div', { class: 'board', id: 'board' });
  const hand = el('div', { class: 'hand panel', id: 'hand', hidden: true });
  const side = el('div', { class: 'panel', id: 'side' });
  const events = el('ol', { class: 'events', id: 'events' });
  const commandBox = el('div', { id: 'commands' });
  clear(root, head, status, el('div', { class: 'grid' }, el('div', {}, board, hand),
    el('aside', {}, playing ? el('div', { class: 'panel' }, el('h2', {}, 'Your move'), commandBox) : null,
      el('div', { class: 'panel' }, el('h2', {}, 'What happened'), events), side)));
  let game = null;
  let kind = null;
  let live = null;
  let record = null;
  let poll = null;

  const ways = () => [['Back to the lobby', '#/']];

  function lostToken(detail) {
    const actions = [['Watch instead', `#/match/${matchId}/watch`], ['Back to the lobby', '#/']];
    actions.unshift(['Take a free seat', async () => {
      try { const got = await join(matchId, null); location.hash = `#/match/${matchId}/seat/${got}`; location.reload(); } catch (e) { notify(`No seat could be taken: ${e.detail || e.message}`, ways()); }
    }]);
    actions.push(['Forget this token', () => { tokens.drop(matchId, seat); notify('The token was forgotten.', [['Back to the lobby', '#/']], 'info'); }]);
    notify(`This browser's token for seat ${seat} is not accepted (${detail}). It may belong to another match or an earlier run of the service.`, actions);
    status.textContent = 'Not connected: the seat token was refused.';
  }

  function draw(msg) {
    record = msg;
    const view = msg.view;
    board.dataset.view = JSON.stringify(view);
    board.dataset.version = msg.version;
    board.dataset.key = msg.key;
    clear(board, kind.board(view, seat));
    const own = playing ? kind.hand(view) : null;
    hand.hidden = !own;
    if (own) clear(hand, el('h2', {}, 'Your hand'), own);
    const mine = playing && (msg.legal || []).length > 0;
    if (msg.finished) {
      status.className = 'status over';
      status.textContent = `Match over: ${outcomeText(msg.outcome)}.`;
      notify('This match has ended.', [['Replay it', `#/match/${matchId}/replay?v=${msg.version}&p=${playing ? seat : 'public'}`], ['Back to the lobby', '#/']], 'info');
    } else if (mine) {
      status.className = 'status turn';
      status.textContent = `Your turn (version ${msg.version}).`;
    } else {
      status.className = 'status';
      const who = (msg.to_act || []).map((s) => (s === seat ? 'you' : `seat ${s}`)).join(', ');
      status.textContent = `Version ${msg.version}: waiting for ${who || 'the service'}.`;
    }
    if (playing) {
      clear(commandBox, mine ? controls(msg.legal, send) : el('p', { class: 'muted' }, msg.finished ? 'The match is over.' : 'Nothing to do until it is your turn.'));
    }
  }

  function send(type, body) {
    return live.send({ idempotency_key: key(), type, body, expected_version: record ? record.version : null });
  }

  function addEvent(event) {
    const { text, hidden } = eventText(event, seat);
    events.prepend(el('li', { class: hidden ? 'hidden' : '', 'data-version': event.version }, text));
    while (events.children.length > MAX_EVENTS) events.lastChild.remove();
  }

  async function waitForPlayers() {
    clearTimeout(poll);
    try {
      const m = await api('GET', `/matches/${encodeURIComponent(matchId)}`);
      if (m.status === 'open') {
        const waiting = m.seats_free.map((s) => (m.bots && m.bots[String(s)] ? `seat ${s} (a ${m.bots[String(s)]} bot is coming)` : `seat ${s}`)).join(', ');
        side.replaceChildren(el('h2', {}, 'Waiting for players'), el('p', { id: 'waiting' }, `Free: ${waiting}. The match starts when every seat is taken.`),
          el('p', {}, el('a', { href: '#/' }, 'Invite someone from the lobby')));
        poll = setTimeout(waitForPlayers, 1500);
      } else {
        side.replaceChildren(el('h2', {}, title(m.game)), el('p', { class: 'muted' }, `${m.seats} seats · ${m.status}`),
          el('p', {}, el('a', { href: `#/match/${matchId}/watch` }, 'spectator view'), ' · ', el('a', { href: '#/' }, 'lobby')));
      }
    } catch (e) { poll = setTimeout(waitForPlayers, 3000); }
  }

  async function start() {
    let m;
    try {
      m = await api('GET', `/matches/${encodeURIComponent(matchId)}`);
    } catch (e) {
      status.textContent = 'No such match.';
      notify(e.status === 404 ? `There is no match ${matchId} (it may have been archived without a public log, or the address is wrong).` : `The match could not be loaded: ${e.detail}`,
        [['Retry', () => location.reload()], ['Back to the lobby', '#/']]);
      return;
    }
    game = m.game;
    kind = await boardFor(game);
    head.replaceChildren(`${title(game)} `, el('span', { class: 'muted' }, matchId), playing ? ` · seat ${seat}` : ' · spectating');
    if (playing && !token) {
      status.textContent = 'This browser holds no token for this seat.';
      const actions = [['Watch instead', `#/match/${matchId}/watch`], ['Back to the lobby', '#/']];
      if (m.status === 'open' && m.seats_free.includes(seat)) actions.unshift([`Take seat ${seat}`, async () => { try { await join(matchId, seat); location.reload(); } catch (e) { notify(`Seat ${seat} could not be taken: ${e.detail}`, ways()); } }]);
      notify(`You hold no token for seat ${seat} of this match in this browser: seats are kept where they were taken.`, actions);
      return;
    }
    waitForPlayers();
    live = new Live(matchId, token, {
      view: (msg) => { draw(msg); },
      event: (event) => addEvent(event),
      result: () => {},
      error: (msg) => {
        if (msg.cid === 'sub' && msg.code === 'unauthorized') lostToken(msg.message);
        else if (msg.cid === 'sub' && msg.code === 'not_found') notify('This match is gone.', ways());
        else notify(`The service said: ${msg.message}`, [['Reconnect', () => live.reconnectNow()], ...ways()]);
      },
      state: (name, detail) => {
        if (name === 'live') {
          connection('live', playing ? `seat ${seat}, live` : 'spectating, live');
          if (document.getElementById('notice').dataset.kind === 'lost') unnotify();
        } else {
          connection('lost', 'disconnected');
          status.textContent = `Connection lost; reconnecting in ${detail.wait} s…`;
          notify(`The connection to the service dropped${detail.reason ? ' (' + detail.reason + ')' : ''}. Reconnecting in ${detail.wait} s; nothing you sent is lost or sent twice.`,
            [['Reconnect now', () => live.reconnectNow()], ...ways()], 'lost');
        }
      },
    });
    live.connect();
  }

  start();
  return () => { clearTimeout(poll); if (live) live.stop(); };
}
