// Modern World: the tableau of resource cards with their prices, the market row, the event, the auction, and
// each player's tokens (against their capacity), the cards in play and in hand (as a count: only the own hand
// is shown, below the board).
import { el, svg, seatColour, words, valueText } from '/web/dom.js';
import { t, frame, seatTag, short } from '/web/boards/common.js';

const W = 960;
const TOKENS = ['victory', 'influence', 'money', 'materials', 'labor', 'research', 'action'];
const TOKEN_COLOURS = { victory: '#a16207', influence: '#7c3aed', money: '#15803d', materials: '#92400e', labor: '#be123c', research: '#0369a1', action: '#475569' };

const fit = (text, n = 138) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);  // one line of the board

function card(x, y, w, h, title, sub, attrs = {}) {
  return svg('g', attrs, svg('rect', { x, y, width: w, height: h, rx: 6, fill: '#fffbeb', stroke: '#b45309' }),
    t(x + 6, y + 18, short(title, 12), { 'font-size': 11, 'font-weight': 600 }), sub ? t(x + 6, y + h - 8, sub, { 'font-size': 11 }) : null);
}

export function board(view) {
  const parts = [];
  let y = 22;
  parts.push(t(10, y, `Turn ${view.turn ?? 0} · ${words(view.phase || '')} · leader seat ${view.leader ?? '–'}`, { 'font-weight': 700 }),
    t(520, y, `decks: resources ${view.resource_deck_count ?? 0}, market ${view.market_deck_count ?? 0}, events ${view.event_deck_count ?? 0}`));
  y += 14;
  parts.push(t(10, y + 14, 'Tableau', { 'font-weight': 600 }));
  (view.tableau || []).forEach((slot, i) => parts.push(card(10 + i * 94, y + 22, 88, 64, slot.card, `price ${slot.price}`, { 'data-tableau': i })));
  y += 100;
  const row = view.market_row || [];
  parts.push(t(10, y, `Market: ${row.length ? row.map((m) => valueText(m.card ?? m)).join(', ') : 'empty'}`));
  y += 18;
  if (view.current_event) { parts.push(t(10, y, `Event: ${view.current_event}`, { 'font-weight': 600 })); y += 18; }
  const a = view.auction;
  if (a) {
    const high = a.high_bidder === null || a.high_bidder === undefined ? 'no bid yet' : `high bid ${a.high_bid} by seat ${a.high_bidder}`;
    parts.push(t(10, y, `Auction for ${valueText(a.item)}: ${high}; seat ${a.to_bid} to bid`, { 'font-weight': 600 }));
    y += 18;
  }
  if ((view.trades || []).length) { parts.push(t(10, y, `Trades offered: ${view.trades.length}`)); y += 18; }
  y += 10;
  for (const p of view.players || []) {
    const top = y;
    parts.push(seatTag(10, y + 12, p.seat, `seat ${p.seat}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(10, y + 30, `${p.hand_count} in hand${p.nation ? ' · ' + valueText(p.nation) : ''}`, { 'font-size': 11 }));
    TOKENS.forEach((tok, i) => {
      const x = 130 + i * 118;
      const have = (p.tokens || {})[tok] ?? 0;
      const cap = (p.capacity || {})[tok];
      parts.push(svg('g', { 'data-token': tok, 'data-seat': p.seat },
        svg('rect', { x, y, width: 110, height: 36, rx: 5, fill: '#fff', stroke: TOKEN_COLOURS[tok] }),
        t(x + 6, y + 14, words(tok), { 'font-size': 10, fill: TOKEN_COLOURS[tok] }),
        t(x + 6, y + 30, `${have}`, { 'font-size': 14, 'font-weight': 700 }),
        cap !== undefined ? t(x + 44, y + 30, `capacity ${cap}`, { 'font-size': 10, fill: '#64748b' }) : null));
    });
    y += 54;
    const inPlay = (p.in_play || []).join(', ') || 'no cards';
    parts.push(t(130, y - 2, fit(`in play: ${inPlay}`), { 'font-size': 11 }));
    if ((p.permanent_events || []).length) { y += 15; parts.push(t(130, y - 2, fit(`lasting events: ${p.permanent_events.join(', ')}`), { 'font-size': 11 })); }
    parts.push(svg('line', { x1: 10, x2: W - 10, y1: y + 2, y2: y + 2, stroke: '#e2e8f0' }));
    parts.push(svg('rect', { x: 4, y: top - 4, width: 4, height: y - top + 4, fill: seatColour(p.seat) }));
    y += 12;
  }
  return frame(W, y + 6, 'Modern World board', ...parts);
}

export function hand(view) {
  const me = (view.players || []).find((p) => p.seat === view.seat);
  if (!me || !Array.isArray(me.hand)) return null;
  return el('div', { class: 'cards' }, me.hand.length ? me.hand.map((c, i) => el('span', { class: 'card', 'data-card': c, 'data-i': i }, valueText(c)))
    : el('span', { class: 'muted' }, 'no cards'));
}
