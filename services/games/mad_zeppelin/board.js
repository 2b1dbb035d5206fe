// Mad Zeppelin: the dice, the safe and the hold, the leader, each player's gold, points towards the target, cargo
// in front and current Traitor (with its colour and ability), the Traitors played this round, the bans and the
// Captain's watches, and what the game waits for; every piece explained (/web/explain.js) in the game's words
// (texts: services/games/mad_zeppelin/texts.py).
import { el, svg, seatColour, words } from '/web/dom.js';
import { t, frame, seatTag, bar, short, explained, said } from '/web/boards/common.js';

const W = 960;
const DIE = { yellow: '#facc15', green: '#22c55e', red: '#ef4444', blue: '#3b82f6', black: '#111827', white: '#f8fafc' };

const traitorName = (key) => (key ? words(key).replace(/^./, (c) => c.toUpperCase()) : '–');

function cargoRow(x, y, label, cards, texts) {  // "cargo: coal, wood" with each card explained
  const parts = [`${label}: `];
  if (!cards.length) parts.push('none');
  cards.forEach((c, i) => {
    parts.push(explained(svg('tspan', { 'data-card': c }, words(c)), words(c), said(texts, 'cargo', c)));
    if (i < cards.length - 1) parts.push(', ');
  });
  return t(x, y, parts);
}

export function board(view, seat, texts = {}) {
  const parts = [];
  let y = 24;
  parts.push(t(10, y, `${words(view.mode || '')} to ${view.target ?? '?'} · turn ${view.turn ?? 0}, round ${view.round ?? 0} · ${words(view.phase || '')}`, { 'font-weight': 700 }));
  if (view.leader !== null && view.leader !== undefined) {
    parts.push(explained(svg('g', { 'data-leader': view.leader }, t(560, y, `Leader: seat ${view.leader} ★`, { 'font-weight': 700 })), 'Leader', said(texts, 'board', 'leader')));
  }
  y += 16;
  parts.push(t(10, y + 26, 'Dice', { 'font-weight': 600 }));
  (view.dice || []).forEach((d, i) => parts.push(explained(svg('g', { 'data-die': d },
    svg('rect', { x: 60 + i * 40, y: y + 6, width: 30, height: 30, rx: 6, fill: DIE[d] || '#cbd5e1', stroke: '#111' })), `${d} die`, said(texts, 'die', d))));
  const stats = [['safe', view.safe, 'safe'], ['hold', view.hold_count, 'hold'], ['journeys', `${view.journeys ?? 0} of 10`, 'journeys'],
    ['removed', view.removed_count], ['airsick', view.airsick_count], ['unused traitors', view.unused_count]];
  stats.forEach(([k, v, explain], i) => {
    const box = svg('g', { 'data-stat': k }, svg('rect', { x: 200 + i * 124, y: y + 2, width: 118, height: 40, rx: 6, fill: '#f1f5f9', stroke: '#94a3b8' }),
      t(206 + i * 124, y + 17, k, { fill: '#475569' }), t(206 + i * 124, y + 35, `${v ?? 0}`, { 'font-size': 14, 'font-weight': 700 }));
    parts.push(explain ? explained(box, k, said(texts, 'board', explain)) : box);
  });
  y += 62;
  if (view.awaiting) { parts.push(t(10, y, `Waiting for seat ${view.awaiting.seat}: ${view.awaiting.what}`, { 'font-weight': 600 })); y += 22; }
  for (const p of view.players || []) {
    const current = p.current ? explained(svg('g', { 'data-traitor': p.current }, t(470, y + 12, `Traitor: ${traitorName(p.current)} (${short(said(texts, 'traitor_short', p.current) || '', 40)})`)),
      traitorName(p.current), said(texts, 'traitor', p.current)) : t(470, y + 12, 'Traitor: –');
    parts.push(svg('g', { 'data-player': p.seat },
      seatTag(10, y + 12, p.seat, `seat ${p.seat}${view.leader === p.seat ? ' ★' : ''}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(110, y + 12, `${p.points} points`, { 'font-weight': 600 }),
      bar(200, y + 3, 120, p.points, view.target || 20, seatColour(p.seat)),
      t(330, y + 12, `gold ${p.gold} · ${p.hand_count} in hand`),
      current,
      cargoRow(110, y + 30, 'cargo in front', p.front || [], texts),
      t(700, y + 30, `traitors left ${p.unplayed_traitors}`)));
    y += 46;
  }
  const bans = view.named_unplayable || [];
  const watches = view.captain_watches || [];
  if (bans.length || watches.length) {
    if (bans.length) {
      parts.push(explained(svg('g', { 'data-bans': bans.join(' ') }, t(10, y + 4, `Cannot be played this turn: ${bans.map(traitorName).join(', ')}`, { 'font-weight': 600 })),
        'Bans', said(texts, 'board', 'bans')));
      y += 20;
    }
    if (watches.length) {
      parts.push(explained(svg('g', { 'data-watches': watches.length }, t(10, y + 4, `Captain's watches: ${watches.map((w) => `seat ${w.seat} on the ${traitorName(w.traitor)}`).join('; ')}`, { 'font-weight': 600 })),
        'Captain\'s watches', said(texts, 'board', 'watches')));
      y += 20;
    }
    y += 6;
  }
  if ((view.plays || []).length) {
    parts.push(t(10, y, 'Played this round', { 'font-weight': 600 }));
    y += 6;
    view.plays.forEach((play, i) => {
      const x = 10 + (i % 6) * 156;
      const yy = y + Math.floor(i / 6) * 40;
      const who = play.identity || play.traitor;
      parts.push(explained(svg('g', { 'data-play': i }, svg('rect', { x, y: yy + 4, width: 150, height: 32, rx: 5, fill: DIE[play.colour] || '#f1f5f9', 'fill-opacity': 0.35, stroke: seatColour(play.seat) }),
        t(x + 6, yy + 24, `seat ${play.seat}: ${short(traitorName(who), 13)}`)), traitorName(who), said(texts, 'traitor', who)));
    });
    y += Math.ceil(view.plays.length / 6) * 40 + 8;
  }
  if ((view.discard || []).length) { y += 10; parts.push(cargoRow(10, y, 'Discard', view.discard, texts)); }
  return frame(W, y + 16, 'Mad Zeppelin board', ...parts);
}

function traitorCard(key, texts, extra = '') {
  return explained(el('span', { class: 'card traitor', 'data-traitor': key }, el('b', {}, traitorName(key) + extra),
    el('small', {}, said(texts, 'traitor_short', key) || '')), traitorName(key), said(texts, 'traitor', key));
}

export function hand(view, texts = {}) {
  if (!Array.isArray(view.hand)) return null;
  const parts = [el('div', { class: 'cards' }, view.hand.length ? view.hand.map((c, i) => explained(el('span', { class: 'card', 'data-card': c, 'data-i': i },
    el('b', {}, words(c)), el('small', {}, said(texts, 'cargo', c) || '')), words(c), said(texts, 'cargo', c)))
    : el('span', { class: 'muted' }, 'no cargo in hand'))];
  if ((view.traitors || []).length) {
    parts.push(el('h3', {}, 'Your Traitors'), el('div', { class: 'cards' }, view.traitors.map((tr) => traitorCard(tr.traitor, texts, tr.playable ? '' : ' (cannot be played)'))));
  }
  if ((view.draft_pool || []).length) parts.push(el('h3', {}, 'To draft from'), el('div', { class: 'cards' }, view.draft_pool.map((k) => traitorCard(k, texts))));
  for (const k of view.knowledge || []) {
    parts.push(el('p', { class: 'muted' }, `You know ${words(k.kind)}${k.of !== null && k.of !== undefined ? ' of seat ' + k.of : ''}:`),
      el('div', { class: 'cards' }, (k.cards || []).map((c) => (said(texts, 'traitor', c) ? traitorCard(c, texts) : el('span', { class: 'card' }, words(c))))));
  }
  return el('div', {}, parts);
}
