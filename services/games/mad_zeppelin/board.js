// Mad Zeppelin: the dice, the safe and the hold, each player's gold, points towards the target, cargo in front
// and current Traitor, the Traitors played this round, and what the game waits for.
import { el, svg, seatColour, words, valueText } from '/web/dom.js';
import { t, frame, seatTag, bar, short } from '/web/boards/common.js';

const W = 960;
const DIE = { yellow: '#facc15', green: '#22c55e', red: '#ef4444', blue: '#3b82f6', black: '#111827', white: '#f8fafc' };

export function board(view) {
  const parts = [];
  let y = 24;
  parts.push(t(10, y, `${words(view.mode || '')} to ${view.target ?? '?'} · turn ${view.turn ?? 0}, round ${view.round ?? 0} · ${words(view.phase || '')}`, { 'font-weight': 700 }));
  y += 16;
  parts.push(t(10, y + 22, 'Dice', { 'font-weight': 600 }));
  (view.dice || []).forEach((d, i) => parts.push(svg('rect', { x: 60 + i * 40, y: y + 6, width: 30, height: 30, rx: 6, fill: DIE[d] || '#cbd5e1', stroke: '#111', 'data-die': d })));
  const stats = [['safe', view.safe], ['hold', view.hold_count], ['removed', view.removed_count], ['journeys', view.journeys],
    ['airsick', view.airsick_count], ['unused traitors', view.unused_count]];
  stats.forEach(([k, v], i) => parts.push(svg('g', {}, svg('rect', { x: 330 + i * 104, y: y + 4, width: 96, height: 34, rx: 6, fill: '#f1f5f9', stroke: '#94a3b8' }),
    t(336 + i * 104, y + 17, k, { 'font-size': 10, fill: '#475569' }), t(336 + i * 104, y + 33, `${v ?? 0}`, { 'font-size': 13, 'font-weight': 700 }))));
  y += 60;
  if (view.awaiting) { parts.push(t(10, y, `Waiting for seat ${view.awaiting.seat}: ${view.awaiting.what}`, { 'font-weight': 600 })); y += 22; }
  for (const p of view.players || []) {
    parts.push(svg('g', { 'data-player': p.seat },
      seatTag(10, y + 12, p.seat, `seat ${p.seat}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(110, y + 12, `${p.points} points`, { 'font-weight': 600 }),
      bar(190, y + 3, 160, p.points, view.target || 20, seatColour(p.seat)),
      t(390, y + 12, `gold ${p.gold} · ${p.hand_count} in hand · traitors left ${p.unplayed_traitors}`),
      t(110, y + 30, `cargo: ${(p.front || []).map(words).join(', ') || 'none'}`, { 'font-size': 11 }),
      t(470, y + 30, `traitor: ${p.current ? words(p.current) : '–'}${p.standing_ability ? ' · ability ' + words(p.standing_ability) : ''}`, { 'font-size': 11 })));
    y += 44;
  }
  if ((view.plays || []).length) {
    parts.push(t(10, y, 'Played this round', { 'font-weight': 600 }));
    y += 6;
    view.plays.forEach((play, i) => {
      const x = 10 + (i % 6) * 156;
      const yy = y + Math.floor(i / 6) * 40;
      parts.push(svg('g', {}, svg('rect', { x, y: yy + 4, width: 150, height: 32, rx: 5, fill: DIE[play.colour] || '#f1f5f9', 'fill-opacity': 0.35, stroke: seatColour(play.seat) }),
        t(x + 6, yy + 24, `seat ${play.seat}: ${short(play.identity || play.traitor || '?', 14)}`, { 'font-size': 11 })));
    });
    y += Math.ceil(view.plays.length / 6) * 40 + 8;
  }
  if ((view.discard || []).length) { y += 10; parts.push(t(10, y, `Discard: ${view.discard.map(words).join(', ')}`, { 'font-size': 11 })); }
  return frame(W, y + 16, 'Mad Zeppelin board', ...parts);
}

export function hand(view) {
  if (!Array.isArray(view.hand)) return null;
  const parts = [el('div', { class: 'cards' }, view.hand.length ? view.hand.map((c, i) => el('span', { class: 'card', 'data-card': c, 'data-i': i }, words(c)))
    : el('span', { class: 'muted' }, 'no cargo in hand'))];
  if ((view.traitors || []).length) parts.push(el('p', {}, 'Your Traitors: ', valueText(view.traitors)));
  if ((view.draft_pool || []).length) parts.push(el('p', {}, 'To draft from: ', valueText(view.draft_pool)));
  for (const k of view.knowledge || []) parts.push(el('p', { class: 'muted' }, `You know ${words(k.kind)}${k.of !== null && k.of !== undefined ? ' of seat ' + k.of : ''}: ${valueText(k.cards)}`));
  return el('div', {}, parts);
}
