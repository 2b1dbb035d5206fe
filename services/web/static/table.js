// The table: a seat's own view (with its hand and its legal commands as controls) or, for a spectator, the
// public view; both live over the WebSocket, with the events in words. Only the seat's own subscription is
// used: the gateway sends a seat nothing of the others' hidden cards. A clocked match (#29) shows every seat's
// clock (clock.js), warns the seat when little time is left, and says when the service moved for a seat.
import { api, join, key, tokens, Live } from './api.js';
import { el, clear, eventText, gameEventText, outcomeText, placings, ordinal, seatName, sentenceStart } from './dom.js';
import { notify, unnotify, connection } from './notice.js';
import { boardFor, title, rulesOf } from './boards/index.js';
import { explainer, boardWidthOf } from './explain.js';
import { controls } from './controls.js';
import { clockPanel, clockEventText, controlText, forfeitReason } from './clock.js';

const MAX_EVENTS = 300;

export function tablePage(root, matchId, seat) {
  const playing = seat !== null;
  const token = playing ? tokens.get(matchId, seat) : null;
  const head = el('h1', {}, 'Match ', el('span', { class: 'muted' }, matchId));
  const status = el('div', { class: 'status', id: 'status', 'aria-live': 'polite' }, 'Connecting…');
  const board = el('div', { class: 'board', id: 'board' });
  const explain = explainer();
  const hand = el('div', { class: 'hand panel', id: 'hand', hidden: true });
  const side = el('div', { class: 'panel', id: 'side' });
  const events = el('ol', { class: 'events', id: 'events', tabindex: 0, 'aria-label': 'what happened, newest first' });  // (it scrolls: the keys reach it)
  const commandBox = el('div', { id: 'commands' });
  const refusal = el('p', { class: 'refusal', id: 'refusal', role: 'status' });  // kept across redraws
  const ending = el('div', { class: 'panel ending', id: 'ending', hidden: true });
  const leave = el('button', { type: 'button', id: 'resign', class: 'quiet' }, 'Resign / leave…');
  const timeControl = el('span', { class: 'muted', id: 'table-clock' });
  const clocks = clockPanel({ reader: playing ? seat : null, name: (s) => who(s) });
  const alerts = el('label', { class: 'muted' }, el('input', { type: 'checkbox', id: 'notify-turn' }), ' tell me when it is my turn (browser notification)');
  clear(root, head, status, clocks.warning, el('div', { class: 'grid' }, el('div', {}, board, explain.nodes[0], hand, explain.nodes[1]),
    el('aside', {}, ending, clocks.node, playing ? el('div', { class: 'panel', id: 'move' }, el('h2', {}, 'Your move'), refusal, commandBox, el('p', {}, alerts), el('p', {}, leave)) : null,
      el('div', { class: 'panel' }, el('h2', {}, 'What happened'), events), side)));
  let game = null;
  let kind = null;
  let live = null;
  let record = null;
  let poll = null;
  let open = true;  // until the lobby says every seat is taken: nobody acts yet, whatever a view says
  let shown = null;  // the status the side panel shows
  let names = {};  // seat -> the registered player who plays it (from the match's summary)
  let control = null;  // the match's time control (from its ClockSet event or a view record), null: no clock
  let drawn = 0;  // the board's width when drawn: it is drawn again to a new width (a phone turned, a window resized)
  const resized = new ResizeObserver(() => { if (record && kind && Math.abs(board.clientWidth - drawn) > 8) draw(record); });
  resized.observe(board);
  const who = (s) => (s === seat && playing ? 'you' : names[String(s)] ? `${names[String(s)]} (seat ${s})` : seatName(s, seat));

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
    if (msg.clock) { control = msg.clock.control; timeControl.textContent = ` · ${controlText(control)}`; }
    clocks.update(msg);
    drawn = board.clientWidth;
    clear(board, kind.board(view, seat, boardWidthOf(board)));
    const own = playing ? kind.hand(view) : null;
    hand.hidden = !own;
    if (own) clear(hand, el('h2', {}, 'Your hand'), own);
    explain.update(board.parentNode);
    const mine = playing && !open && (msg.legal || []).length > 0;
    if (msg.finished && shown !== 'finished') waitForPlayers();  // the side panel follows the match to its end
    turnSignals(mine, msg.finished);
    if (msg.finished) showEnding(msg);
    if (msg.finished) {
      status.className = 'status over';
      status.textContent = `Match over: ${outcomeText(msg.outcome)}.`;
      notify('This match has ended.', [['Replay it', `#/match/${matchId}/replay?v=${msg.version}&p=${playing ? seat : 'public'}`], ['Back to the lobby', '#/']], 'info');
    } else if (open) {
      status.className = 'status';
      status.textContent = 'Waiting for players: the match begins when every seat is taken.';
    } else if (mine) {
      status.className = 'status turn';
      status.textContent = 'Your turn.';
    } else {
      status.className = 'status';
      const waitingFor = (msg.to_act || []).map(who).join(', ');
      status.textContent = `Waiting for ${waitingFor || 'the service'}.`;
    }
    if (playing) {
      clear(commandBox, mine ? controls(msg.legal, send, (choice) => (kind.describe ? kind.describe(choice, view, msg.legal) : null)) : el('p', { class: 'muted' }, msg.finished ? 'The match is over.'
        : open ? 'Nothing to do until every seat is taken.' : 'Nothing to do until it is your turn.'));
    }
  }

  function turnSignals(mine, finished) {  // the tab's title and icon say whose turn it is; a notification if asked
    const was = document.title.startsWith('▶');
    document.title = `${mine ? '▶ Your turn · ' : finished ? 'Match over · ' : ''}${title(game)} · airship`;
    const icon = document.querySelector('link[rel="icon"]');
    if (icon) icon.href = mine ? '/web/icon-turn.svg' : '/web/icon.svg';
    document.getElementById('move')?.classList.toggle('myturn', mine);
    if (mine && !was && document.hidden && alerts.firstChild.checked && window.Notification && Notification.permission === 'granted') {
      new Notification(`Your turn in ${title(game)}`, { body: `Match ${matchId}, seat ${seat}`, tag: `airship-${matchId}` });
    }
  }

  function showEnding(msg) {  // "You finished 2nd of 3", everyone's score and why it ended
    const outcome = msg.outcome || {};
    const abandoned = outcome.detail && outcome.detail.abandoned === true;
    const rows = abandoned ? [] : placings(outcome);
    const me = rows.find((r) => r.seat === seat);
    const head = abandoned ? 'The match ended without a winner.'
      : me ? `You finished ${ordinal(me.place)} of ${rows.length}.` : `${(outcome.winners || []).map(who).join(' and ') || 'Nobody'} won.`;
    const forfeited = outcome.detail && Array.isArray(outcome.detail.forfeited) ? outcome.detail.forfeited : [];
    if (forfeited.length) { showForfeit(msg, outcome, forfeited); return; }
    const reason = outcome.detail && outcome.detail.reason ? ` It ended: ${String(outcome.detail.reason).replace(/_/g, ' ')}.` : '';
    ending.hidden = false;
    ending.replaceChildren(el('h2', {}, 'Result'), el('p', { id: 'placing' }, head + reason),
      rows.length ? el('ol', { class: 'placings' }, rows.map((r) => el('li', { 'data-seat': r.seat },
        `${ordinal(r.place)}: ${who(r.seat)} — ${r.score} points`))) : el('p', {}, outcomeText(outcome)),
      ...endLinks(msg));
    if (playing) watchForRematch();
  }

  function showForfeit(msg, outcome, forfeited) {  // a seat's clock ran out (#29): it places last, the others win
    const why = forfeitReason(outcome.detail.reason, control);
    const lost = forfeited.map(who);
    const winners = (outcome.winners || []).map(who);
    const said = `${lost.join(' and ')} forfeited (${why}).`;
    const head = forfeited.includes(seat) && playing ? `You forfeited (${why}).`
      : winners.includes('you') ? `You won: ${said}` : `${said} ${winners.join(' and ') || 'Nobody'} won.`;
    ending.hidden = false;
    ending.replaceChildren(el('h2', {}, 'Result'), el('p', { id: 'placing', class: 'forfeit' }, sentenceStart(head)),
      el('ol', { class: 'placings' }, [...(outcome.winners || []).map((s) => el('li', { 'data-seat': s }, `1st: ${who(s)} — won`)),
        ...forfeited.map((s) => el('li', { 'data-seat': s }, `${ordinal((outcome.winners || []).length + 1)}: ${who(s)} — forfeited`))]),
      ...endLinks(msg));
    if (playing) watchForRematch();
  }

  function endLinks(msg) {
    return [
      playing ? el('p', { id: 'rematch-line' }, rematchButton()) : null,
      el('p', {}, el('a', { href: `#/match/${matchId}/replay?v=${msg.version}&p=${playing ? seat : 'public'}` }, 'Replay it'), ' · ',
        el('a', { href: '#/' }, 'New match in the lobby'))].filter(Boolean);  // (replaceChildren would write "null")
  }

  function rematchButton(offered) {  // the same match again, the same seats: ask for it, or take it when offered
    const label = offered ? `Rematch offered: take seat ${seat}` : 'Rematch with the same seats';
    return el('button', { type: 'button', id: 'rematch', class: offered ? 'primary' : '', onclick: async () => {
      try {
        const next = offered || (await api('POST', `/matches/${encodeURIComponent(matchId)}/rematch`, { token })).match_id;
        if (!tokens.get(next, seat)) await join(next, seat);
        location.hash = `#/match/${next}/seat/${seat}`;
      } catch (e) { notify(`No rematch: ${e.detail || e.message}`, ways()); }
    } }, label);
  }

  function watchForRematch(tries = 200) {  // another seat may ask first: its rematch is offered here
    clearTimeout(poll);
    api('GET', `/matches/${encodeURIComponent(matchId)}`).then((m) => {
      const line = document.getElementById('rematch-line');
      if (m.rematch && line) line.replaceChildren(rematchButton(m.rematch));
      else if (tries > 0) poll = setTimeout(() => watchForRematch(tries - 1), 3000);
    }).catch(() => { if (tries > 0) poll = setTimeout(() => watchForRematch(tries - 1), 3000); });
  }

  leave.addEventListener('click', async () => {  // the abandon vote: the match ends when the others agree
    if (!window.confirm('Vote to end this match early? It ends, without a winner, once every other player agrees (or they stop playing).')) return;
    try {
      const answer = await api('POST', `/matches/${encodeURIComponent(matchId)}/abandon`, { token });
      notify(answer.abandoned ? 'The match is ended.' : `Your vote counts; waiting for ${(answer.waiting_for || []).map((s) => seatName(s, seat)).join(', ') || 'the others'} to agree.`, ways(), 'info');
    } catch (e) { notify(`Your vote was not taken: ${e.detail || e.message}`, ways()); }
  });
  alerts.firstChild.addEventListener('change', async (ev) => {
    if (ev.target.checked && window.Notification && Notification.permission === 'default') await Notification.requestPermission();
  });

  async function send(type, body) {
    refusal.textContent = '';
    const answer = await live.send({ idempotency_key: key(), type, body, expected_version: record ? record.version : null });
    const result = answer && answer.result;
    if (result && result.status === 'rejected') {  // said here too: the controls it came from are redrawn
      refusal.dataset.code = result.code || 'rejected';
      refusal.textContent = result.code === 'conflict'
        ? 'Your last move came too late: the match had moved on (you already moved in another tab, or another player acted first). The board shows where it is now.'
        : `Your last move was refused: ${result.reason || result.code}`;
    }
    return answer;
  }

  function addEvent(event, gameText) {
    if (event.type === 'ClockSet' && event.body && event.body.control) control = event.body.control;
    const said = clockEventText(event, who, control);
    if (said === '') return;  // (MoveTimed: after every move; the clocks show what it changed)
    if (said && (event.type === 'TimedOut' || event.type === 'Forfeited')) clocks.news(said, event.body.seat, event.version);
    // the game's sentence; '' when it tells nothing of the event (bookkeeping: its effect is on the board): the
    // event is kept in the list, not shown
    const game = said ? null : gameEventText(event, gameText, playing ? seat : null, names);
    const worded = said ? { text: said, hidden: false } : eventText(event, seat, (s) => who(s));
    events.prepend(el('li', { hidden: game === '', class: worded.hidden ? 'hidden' : said ? 'clock-event' : '', 'data-version': event.version, 'data-type': event.type },
      game === null ? worded.text : game));
    while (events.children.length > MAX_EVENTS) events.lastChild.remove();
  }

  async function waitForPlayers() {
    clearTimeout(poll);
    try {
      const m = await api('GET', `/matches/${encodeURIComponent(matchId)}`);
      names = { ...(m.reserved || {}), ...(m.players || {}) };
      const began = open && m.status !== 'open';
      open = m.status === 'open';
      shown = m.status;
      if (began && record) draw(record);
      else if (record) {  // the players' names, where they are said
        clocks.redraw();
        if (record.finished) showEnding(record);
      }
      if (m.status === 'open') {
        const reserved = m.reserved || {};
        const waiting = m.seats_free.map((s) => (m.bots && m.bots[String(s)] ? `seat ${s} (a ${m.bots[String(s)]} bot is coming)`
          : reserved[String(s)] ? `seat ${s} (waiting for ${reserved[String(s)]})` : `seat ${s}`)).join(', ');
        side.replaceChildren(el('h2', {}, 'Waiting for players'), el('p', { id: 'waiting' }, `Free: ${waiting}. The match starts when every seat is taken.`),
          el('p', {}, el('a', { href: '#/' }, 'Invite someone from the lobby')));
        poll = setTimeout(waitForPlayers, 1500);
      } else {
        const people = Object.entries(names).map(([s, name]) => `${name} (seat ${s})`).join(', ');
        side.replaceChildren(el('h2', {}, title(m.game)), el('p', { class: 'muted' }, `${m.seats} seats · ${m.status}`),
          ...(people ? [el('p', { id: 'people' }, `Players: ${people}`)] : []),  // (replaceChildren would show a null as text)
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
    head.replaceChildren(`${title(game)} `, el('span', { class: 'muted' }, matchId), playing ? ` · seat ${seat}` : ' · spectating', timeControl);
    if (rulesOf(game)) head.after(el('p', { class: 'rules-link' }, el('a', { href: `#/rules/${encodeURIComponent(game)}`, id: 'rules-link', target: '_blank' }, `Rules of ${title(game)}`), ' (opens in a new tab; hover or tap a piece on the board to read what it does)'));
    if (playing && !token) {
      status.textContent = 'This browser holds no token for this seat.';
      const actions = [['Watch instead', `#/match/${matchId}/watch`], ['Back to the lobby', '#/']];
      if (m.status === 'open' && m.seats_free.includes(seat) && !(m.reserved || {})[String(seat)]) actions.unshift([`Take seat ${seat}`, async () => { try { await join(matchId, seat); location.reload(); } catch (e) { notify(`Seat ${seat} could not be taken: ${e.detail}`, ways()); } }]);
      notify(`You hold no token for seat ${seat} of this match in this browser: seats are kept where they were taken.`, actions);
      return;
    }
    waitForPlayers();
    live = new Live(matchId, token, {
      view: (msg) => { draw(msg); },
      event: (event, text) => addEvent(event, text),
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
          if (record) draw(record); else status.textContent = 'Connected; waiting for the first view…';  // not "lost"
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
  return () => { clearTimeout(poll); clocks.stop(); resized.disconnect(); if (live) live.stop(); };
}
