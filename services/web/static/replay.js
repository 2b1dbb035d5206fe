// Replay of a finished match: step and scrub through every version, switch between the public view and each
// seat's (as far as the log is public), the scores over the match, the log's verification, a shareable
// address for every version and perspective, and keyboard shortcuts. The gateway replays the log
// (GET /matches/{id}/replay/{v}?seat=s): the page shows what `airship replay --at V --seat S` shows.
import { api, tokens } from './api.js';
import { el, clear, seatColour, outcomeText } from './dom.js';
import { notify } from './notice.js';
import { boardFor, title } from './boards/index.js';
import { explainer, boardWidthOf } from './explain.js';
import { moveList } from './moves.js';
import { chart } from './chart.js';

export function replayPage(root, matchId, params) {
  const held = tokens.of(matchId);
  const token = Object.values(held)[0] || null;
  const head = el('h1', {}, 'Replay ', el('span', { class: 'muted' }, matchId));
  clear(root, head, el('p', { class: 'muted', id: 'status' }, 'Replaying the log…'));
  let overview = null;
  let kind = null;
  let version = 0;
  let perspective = 'public';
  let playing = null;
  let asked = 0;
  const cache = new Map();
  const onKey = (e) => keys(e);

  const slider = el('input', { type: 'range', min: 0, value: 0, id: 'scrub', 'aria-label': 'version' });
  const counter = el('span', { id: 'counter' });
  const who = el('select', { id: 'perspective', 'aria-label': 'perspective' });
  const playButton = el('button', { type: 'button', id: 'play' }, '▶ play');
  const board = el('div', { class: 'board', id: 'board' });
  const hand = el('div', { class: 'hand panel', id: 'hand', hidden: true });
  const explain = explainer();
  const eventLine = el('p', { id: 'event', class: 'status' });
  const text = el('pre', { class: 'text', id: 'replay-text', tabindex: 0, 'aria-label': 'the step as text' });
  const verify = el('p', { id: 'verify', class: 'verify' });
  const chartBox = el('div', { class: 'chart', id: 'chart' });
  const legend = el('div', { class: 'legend' });
  const share = el('a', { id: 'share', href: '#' }, 'link to this version');
  const movesBox = el('div', { id: 'moves-box' });
  let moves = null;

  function address() {
    return `#/match/${encodeURIComponent(matchId)}/replay?v=${version}&p=${perspective}`;
  }

  async function step(v) {
    const k = `${v}:${perspective}`;
    if (!cache.has(k)) {
      const seatParam = perspective === 'public' ? '' : `?seat=${perspective}`;
      cache.set(k, api('GET', `/matches/${encodeURIComponent(matchId)}/replay/${v}${seatParam}`, { token: perspective === 'public' ? null : held[perspective] || token }));
    }
    try { return await cache.get(k); } catch (e) { cache.delete(k); throw e; }
  }

  async function show(v, how = 'replace') {
    version = Math.max(0, Math.min(overview.last, v));
    const ticket = ++asked;
    slider.value = version;
    counter.textContent = `version ${version} of ${overview.last}`;
    if (moves) moves.show(version);
    share.href = address();
    history[how === 'push' ? 'pushState' : 'replaceState'](null, '', address());
    let s;
    try { s = await step(version); } catch (e) {
      notify(`Version ${version} could not be shown: ${e.detail || e.message}`, [['Retry', () => show(version)], ['Back to the lobby', '#/']]);
      return;
    }
    if (ticket !== asked) return;  // a later step was asked for meanwhile
    board.dataset.view = JSON.stringify(s.view);
    board.dataset.version = s.version;
    board.dataset.perspective = perspective;
    clear(board, kind.board(s.view, s.seat, boardWidthOf(board)));
    const own = s.seat === null ? null : kind.hand(s.view);
    hand.hidden = !own;
    if (own) clear(hand, el('h2', {}, `Seat ${s.seat}'s hand`), own);
    explain.update(board.parentNode);
    const said = s.event.length > 240 ? `${s.event.slice(0, 239)}…` : s.event;
    eventLine.textContent = s.finished ? `${said} — match over: ${outcomeText(s.outcome)}` : said;
    eventLine.title = s.event;
    eventLine.dataset.event = s.event;
    text.textContent = s.text;
    const marker = chartBox.querySelector('#chart-marker');
    if (marker) { const x = 40 + (overview.last ? version / overview.last : 0) * (900 - 52); marker.setAttribute('x1', x); marker.setAttribute('x2', x); }
  }

  function setPerspective(p) {
    if (!overview.perspectives.includes(p)) return;
    perspective = p;
    who.value = p;
    show(version);
  }

  function toggle() {
    if (playing) { clearInterval(playing); playing = null; playButton.textContent = '▶ play'; return; }
    if (version >= overview.last) show(0);
    playButton.textContent = '❚❚ pause';
    playing = setInterval(() => { if (version >= overview.last) toggle(); else show(version + 1); }, 400);
  }

  function keys(e) {
    if (!overview || e.target.closest('input[type=text], input[type=number], select, textarea')) return;
    const big = e.shiftKey ? 10 : 1;
    if (e.key === 'ArrowRight') show(version + big);
    else if (e.key === 'ArrowLeft') show(version - big);
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(overview.last);
    else if (e.key === ' ') toggle();
    else if (e.key === 'p') setPerspective(overview.perspectives[(overview.perspectives.indexOf(perspective) + 1) % overview.perspectives.length]);
    else if (e.key === 'v') setPerspective('public');
    else if (/^[0-9]$/.test(e.key)) setPerspective(e.key);
    else if (e.key === 'l') navigator.clipboard?.writeText(location.href).catch(() => {});
    else return;
    e.preventDefault();
  }

  async function start() {
    try {
      overview = await api('GET', `/matches/${encodeURIComponent(matchId)}/replay`, { token });
    } catch (e) {
      const ways = [['Back to the lobby', '#/']];
      if (e.status === 409) ways.unshift(['Watch it live', `#/match/${matchId}/watch`]);
      notify(`This match cannot be replayed: ${e.detail || e.message}`, [['Retry', () => location.reload()], ...ways]);
      root.querySelector('#status').textContent = 'No replay.';
      return;
    }
    kind = await boardFor(overview.game);
    head.replaceChildren(`Replay: ${title(overview.game)} `, el('span', { class: 'muted' }, matchId));
    slider.max = overview.last;
    who.replaceChildren(...overview.perspectives.map((p) => el('option', { value: p }, p === 'public' ? 'public view' : `seat ${p}`)));
    const v = Number.parseInt(params.get('v') ?? '', 10);
    const p = params.get('p') || 'public';
    perspective = overview.perspectives.includes(p) ? p : 'public';
    who.value = perspective;
    if (p !== perspective) notify(`Seat ${p}'s view of this match is not public; showing the public one.`, [], 'info');
    const ver = overview.verification;
    verify.className = `verify ${ver.ok ? 'ok' : 'bad'}`;
    verify.dataset.ok = ver.ok;
    verify.textContent = ver.ok ? `✔ Log verified. ${ver.checked}` : `✘ The log failed verification at version ${ver.version}. ${ver.checked}`;
    legend.replaceChildren(...Array.from({ length: overview.seats }, (_, s) => el('span', {}, el('span', { class: 'swatch', style: null, 'data-seat': s }), `seat ${s}`)),
      el('span', { class: 'muted' }, overview.money ? 'solid: score · dashed: money' : 'score'));
    legend.querySelectorAll('.swatch').forEach((sw) => { sw.style.background = seatColour(Number(sw.dataset.seat)); });
    clear(chartBox, chart(overview, 0, (x) => show(x, 'push')));
    slider.addEventListener('input', () => show(Number(slider.value)));
    who.addEventListener('change', () => setPerspective(who.value));
    playButton.addEventListener('click', toggle);
    root.querySelector('#status').replaceWith(el('div', {},
      el('div', { class: 'panel' },
        el('div', { class: 'bar' },
          el('button', { type: 'button', id: 'first', onclick: () => show(0), title: 'first (Home)' }, '|◀'),
          el('button', { type: 'button', id: 'prev', onclick: () => show(version - 1) }, '◀'),
          slider,
          el('button', { type: 'button', id: 'next', onclick: () => show(version + 1) }, '▶'),
          el('button', { type: 'button', id: 'last', onclick: () => show(overview.last), title: 'last (End)' }, '▶|'),
          playButton, counter, who, share),
        el('p', { class: 'muted' }, 'Keys: ← → step (Shift: 10), Home/End, Space play, p/v/0–9 perspective, l copy link. ', el('a', { href: '#/help' }, 'help')),
        verify),
      eventLine,
      el('div', { class: 'grid' },
        el('div', {}, board, explain.nodes[0], hand, explain.nodes[1], el('div', { class: 'panel chart-panel' }, el('h2', {}, 'Score over the match'), chartBox, legend)),
        el('aside', {}, movesBox, el('details', { class: 'panel', open: true }, el('summary', {}, 'As text (airship replay --at V --seat S)'), text)))));
    document.addEventListener('keydown', onKey);
    show(Number.isNaN(v) ? overview.last : v);
    api('GET', `/matches/${encodeURIComponent(matchId)}/log`).then((log) => {  // the move list: the public's log
      moves = moveList(log.events || [], (x) => show(x, 'push'), log.perspective === 'full');
      movesBox.replaceChildren(moves.node);
      moves.show(version);
    }).catch((e) => movesBox.replaceChildren(el('p', { class: 'muted' }, `The list of moves could not be loaded: ${e.detail || e.message}`)));
  }

  start();
  return () => { document.removeEventListener('keydown', onKey); if (playing) clearInterval(playing); };
}
