// Mad Zeppelin: the dice, the safe and the hold, the leader, each player's gold, points towards the target, cargo
// in front and current Traitor (with its colour and ability), the Traitors played this round, the bans and the
// Captain's watches, and what the game waits for; every piece explained (/web/explain.js) in the game's words
// (texts: services/games/mad_zeppelin/texts.py).
import { el, svg, seatColour, words } from '/web/dom.js';
import { t, frame, seatTag, bar, short, explained, said, boardWidth, Flow, para, nameLines } from '/web/boards/common.js';

const DIE = { yellow: '#facc15', green: '#22c55e', red: '#ef4444', blue: '#3b82f6', black: '#111827', white: '#f8fafc' };

const traitorName = (key) => (key ? words(key).replace(/^./, (c) => c.toUpperCase()) : '–');
const cargoPiece = (texts) => (c) => explained(svg('tspan', { 'data-card': c }, words(c)), words(c), said(texts, 'cargo', c));

export function board(view, seat, texts = {}, width = 960) {
  const W = boardWidth(width);
  const narrow = W < 700;
  const parts = [];
  let y = 24;
  const [head, hh] = para(10, y, `${words(view.mode || '')} to ${view.target ?? '?'} · turn ${view.turn ?? 0}, round ${view.round ?? 0} · ${words(view.phase || '')}`,
    narrow ? W - 20 : W - 220, { 'font-weight': 700 });
  parts.push(head);
  if (view.leader !== null && view.leader !== undefined) {
    const at = narrow ? { x: 10, y: y + hh } : { x: W - 10, y };
    parts.push(explained(svg('g', { 'data-leader': view.leader }, t(at.x, at.y, `Leader: seat ${view.leader} ★`, { 'font-weight': 700, 'text-anchor': narrow ? 'start' : 'end' })),
      'Leader', said(texts, 'board', 'leader')));
    if (narrow) y += 18;
  }
  y += hh + 4;
  parts.push(t(10, y + 26, 'Dice', { 'font-weight': 600 }));
  (view.dice || []).forEach((d, i) => parts.push(explained(svg('g', { 'data-die': d },
    svg('rect', { x: 50 + i * 40, y: y + 6, width: 30, height: 30, rx: 6, fill: DIE[d] || '#cbd5e1', stroke: '#111' })), `${d} die`, said(texts, 'die', d))));
  const stats = [['safe', view.safe, 'safe'], ['hold', view.hold_count, 'hold'], ['journeys', `${view.journeys ?? 0} of 10`, 'journeys'],
    ['removed', view.removed_count], ['airsick', view.airsick_count], ['unused traitors', view.unused_count]];
  const sw = narrow ? Math.floor((W - 20 - 2 * 6) / 3) : 118;
  const flow = new Flow(narrow ? 10 : 200, narrow ? y + 44 : y + 2, W - 10);
  stats.forEach(([k, v, explain]) => {
    const at = flow.place(sw, 40);
    const box = svg('g', { 'data-stat': k }, svg('rect', { x: at.x, y: at.y, width: sw, height: 40, rx: 6, fill: '#f1f5f9', stroke: '#94a3b8' }),
      t(at.x + 6, at.y + 15, short(k, Math.floor((sw - 10) / 7)), { fill: '#475569' }), t(at.x + 6, at.y + 33, `${v ?? 0}`, { 'font-size': 14, 'font-weight': 700 }));
    parts.push(explain ? explained(box, k, said(texts, 'board', explain)) : box);
  });
  y = Math.max(flow.bottom, y + 42) + 22;
  if (view.awaiting) {
    const [node, h] = para(10, y, `Waiting for seat ${view.awaiting.seat}: ${view.awaiting.what}`, W - 20, { 'font-weight': 600 });
    parts.push(node);
    y += h + 6;
  }
  for (const p of view.players || []) {
    const line = [];
    line.push(seatTag(10, y + 12, p.seat, `seat ${p.seat}${view.leader === p.seat ? ' ★' : ''}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(110, y + 12, `${p.points} points`, { 'font-weight': 600 }),
      bar(200, y + 3, narrow ? W - 210 : 120, p.points, view.target || 20, seatColour(p.seat)));
    let row = narrow ? y + 30 : y + 12;
    line.push(t(narrow ? 24 : 330, row, `gold ${p.gold} · ${p.hand_count} in hand · traitors left ${p.unplayed_traitors}`));
    if (narrow) row += 18;
    const tx = narrow ? 24 : 560;
    const short_ = said(texts, 'traitor_short', p.current) || '';
    const traitorLine = p.current ? `Traitor: ${traitorName(p.current)} (${short_.split(' · ')[0]})` : 'Traitor: –';
    line.push(p.current ? explained(svg('g', { 'data-traitor': p.current }, t(tx, row, traitorLine)), traitorName(p.current), said(texts, 'traitor', p.current)) : t(tx, row, traitorLine));
    row += 18;
    const [front, fh] = nameLines(24, row, 'cargo in front', p.front || [], W - 34, cargoPiece(texts));
    line.push(front);
    parts.push(svg('g', { 'data-player': p.seat }, line));
    y = row + fh + 8;
  }
  const bans = view.named_unplayable || [];
  const watches = view.captain_watches || [];
  if (bans.length) {
    const [node, h] = para(10, y + 4, `Cannot be played this turn: ${bans.map(traitorName).join(', ')}`, W - 20, { 'font-weight': 600 });
    parts.push(explained(svg('g', { 'data-bans': bans.join(' ') }, node), 'Bans', said(texts, 'board', 'bans')));
    y += h + 4;
  }
  if (watches.length) {
    const [node, h] = para(10, y + 4, `Captain's watches: ${watches.map((w) => `seat ${w.seat} on the ${traitorName(w.traitor)}`).join('; ')}`, W - 20, { 'font-weight': 600 });
    parts.push(explained(svg('g', { 'data-watches': watches.length }, node), 'Captain\'s watches', said(texts, 'board', 'watches')));
    y += h + 4;
  }
  if ((view.plays || []).length) {
    y += 8;
    parts.push(t(10, y, 'Played this round', { 'font-weight': 600 }));
    const pw = narrow ? Math.floor((W - 26) / 2) : 150;
    const plays = new Flow(10, y + 8, W - 10);
    view.plays.forEach((play, i) => {
      const at = plays.place(pw, 32);
      const who = play.identity || play.traitor;
      parts.push(explained(svg('g', { 'data-play': i }, svg('rect', { x: at.x, y: at.y, width: pw, height: 32, rx: 5, fill: DIE[play.colour] || '#f1f5f9', 'fill-opacity': 0.35, stroke: seatColour(play.seat) }),
        t(at.x + 6, at.y + 20, `seat ${play.seat}: ${short(traitorName(who), Math.floor((pw - 60) / 7))}`)), traitorName(who), said(texts, 'traitor', who)));
    });
    y = plays.bottom + 8;
  }
  if ((view.discard || []).length) {
    y += 14;
    const [node, h] = nameLines(10, y, 'Discard', view.discard, W - 20, cargoPiece(texts));
    parts.push(node);
    y += h;
  }
  return frame(W, y + 10, 'Mad Zeppelin board', ...parts);
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

// A legal move in words for its control (/web/controls.js): the Traitor, the die (by its colour), the Cargo and
// its cost in Gold as things stand (the Guard, Alcohol in front, the Machinist), who gives or is robbed; a throw
// paid with no crate is one control (its alias with an empty list of crates is left out), and a warning before a
// throw that takes all your Gold and before ending a turn while a throw was still open.
function costOf(card, who, front, texts) {  // services/games/mad_zeppelin/rules.py throw_cost, from what the view shows
  const printed = Number(said(texts, 'cargo_cost', card) ?? NaN);
  if (who === 'machinist' && said(texts, 'cargo_level', card) === '1') return 0;
  return Math.max(0, printed - front.filter((c) => c === 'alcohol').length - (who === 'guard' ? 1 : 0));
}
const CRATE = { small_crate: 1, big_crate: 2 };
const crateText = (crates) => crates.map((c) => `${words(c)} (${CRATE[c]} Gold)`).join(' + ');

export function describe(choice, view, texts = {}, legal = []) {
  const b = choice.body || {};
  const self = (view.players || []).find((p) => p.seat === (view.awaiting || {}).seat) || {};
  const seq = view.sequence || {};
  const die = (i) => `the ${(view.dice || [])[i] || '?'} die${(view.dice || []).filter((d) => d === (view.dice || [])[i]).length > 1 ? ` (die ${i + 1})` : ''}`;
  const colour = (key) => ((said(texts, 'traitor_short', key) || '').split(' · ')[0] || '?');
  switch (choice.type) {
    case 'draft': return { label: `draft the ${traitorName(b.traitor)} (${colour(b.traitor)})` };
    case 'play_traitor': return { label: `play the ${traitorName(b.traitor)} (${colour(b.traitor)})` };
    case 'choose_colour': return { label: `choose the colour of ${die(b.die)}`, fields: { colour: 'colour' }, object: `die ${b.die + 1}` };
    case 'reroll': return { label: `re-roll ${die(b.die)}` };
    case 'steal': return { label: b.take === 'gold' ? `steal 1 Gold from seat ${seq.seat}` : `steal a random Cargo card from seat ${seq.seat}` };
    case 'give': return { label: b.what === 'gold' ? `give seat ${seq.seat} 1 Gold` : `give seat ${seq.seat} your ${words(b.card)}` };
    case 'arrange_hold': return { label: 'put the Hold\'s top cards back in this order', fields: { order: 'order, top first' }, object: 'the Hold' };
    case 'end_sequence': {
      const canThrow = legal.some((c) => c.type === 'throw');
      return { label: 'end your turn', warn: () => (canThrow ? 'You could still throw Cargo this turn.' : null) };
    }
    case 'use_ability': {
      const who = self.current;
      const parts = [];
      if (b.look === 'unused') parts.push('look at the Traitors out of play');
      if (b.look === 'player') parts.push(`look at seat ${b.seat}'s unplayed Traitor`);
      else if (b.seat !== undefined && b.seat !== null) parts.push(`on seat ${b.seat}`);
      if (b.die !== undefined && b.die !== null) parts.push(`on ${die(b.die)}`);
      if (b.traitor) parts.push(`naming the ${traitorName(b.traitor)}`);
      return { label: `use the ${traitorName(who)}'s ability${parts.length ? ': ' + parts.join(', ') : ''}`, fields: { traitor: 'Traitor to name', die: 'die', seat: 'seat' }, object: `${traitorName(who)}'s ability` };
    }
    case 'throw': {
      if (b.card === 'alcohol') return { label: 'put alcohol in front of you (free)', hide: Array.isArray(b.crates) };
      const alias = Array.isArray(b.crates) && b.crates.length === 0;  // [] is the same as no crates
      const withCrates = legal.some((c) => c.type === 'throw' && c.body.card === b.card && c.free && c.free.crates);
      const cost = costOf(b.card, self.current, self.front || [], texts);
      const crates = Array.isArray(b.crates) ? b.crates : [];
      const gold = Math.max(0, cost - crates.reduce((n, c) => n + CRATE[c], 0));
      const hide = alias || (!choice.free?.crates && !crates.length && withCrates);  // the row with crates covers it
      return { label: `throw ${words(b.card)} (${cost} Gold)`, group: b.card, hide,
        option: crates.length ? `${crateText(crates)}${gold ? ` and ${gold} Gold` : ''}` : 'Gold only', optionLabel: 'pay with',
        fields: { crates: 'crates that pay' }, object: `throw ${words(b.card)}`,
        warn: (body) => {
          const paid = (Array.isArray(body.crates) ? body.crates : []).reduce((n, c) => n + CRATE[c], 0);
          return cost - paid >= (self.gold ?? Infinity) && cost - paid > 0 ? `This throw takes all your Gold (${self.gold}).` : null;
        } };
    }
    default: return null;
  }
}
