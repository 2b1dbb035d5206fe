// Moderne Zeiten: the track with its cities and industries, the claims and the players' pawns, the industry
// counters and their controllers, the crash counter, the auction, and each player's money and played cards; every
// piece explained (/web/explain.js) in the game's words (texts: services/games/moderne_zeiten/texts.py).
import { el, svg, seatColour, words } from '/web/dom.js';
import { t, frame, pawn, seatMark, seatTag, bar, colourOf, short, explained, said, boardWidth, Flow, para } from '/web/boards/common.js';

const SPACE_W = 84;
const SPACE_H = 56;

export function board(view, seat, texts = {}, width = 960) {
  const W = boardWidth(width);
  const narrow = W < 700;
  const perRow = Math.max(3, Math.min(10, Math.floor((W - 74) / SPACE_W)));
  const spaceAt = (index) => {  // 0-based index along the snake
    const row = Math.floor(index / perRow);
    const col = index % perRow;
    return { x: 70 + (row % 2 === 0 ? col : perRow - 1 - col) * SPACE_W, y: 30 + row * (SPACE_H + 14) };
  };
  const track = view.track || [];
  const cities = Object.keys(view.city_points || {});
  const cityColour = colourOf(cities);
  const industries = Object.keys(view.industry_points || view.controller || {});
  const players = view.players || [];
  const parts = [];
  const rows = Math.ceil(track.length / perRow) || 1;
  // start and finish
  parts.push(svg('rect', { x: 4, y: 30, width: 60, height: SPACE_H, rx: 6, fill: '#f1f5f9', stroke: '#94a3b8' }), t(12, 50, 'start'));
  const last = spaceAt(Math.max(track.length - 1, 0));
  const finish = { x: last.x, y: last.y + SPACE_H + 14 };
  parts.push(explained(svg('g', { 'data-finish': 1 }, svg('rect', { x: finish.x, y: finish.y, width: SPACE_W - 6, height: 36, rx: 6, fill: '#fef3c7', stroke: '#a16207' }),
    t(finish.x + 8, finish.y + 22, `finish ${view.finish ?? ''}`)), 'Finish', said(texts, 'board', 'finish')));
  track.forEach((space, i) => {
    const { x, y } = spaceAt(i);
    parts.push(explained(svg('g', { 'data-space': space.space },
      svg('rect', { x, y, width: SPACE_W - 6, height: SPACE_H, rx: 5, fill: cityColour(space.city), stroke: '#64748b' }),
      t(x + 4, y + 14, `${space.space}`, { fill: '#475569' }),
      t(x + 4, y + 30, short(space.city, 10), { 'font-weight': 600 }),
      t(x + 4, y + 46, short(space.industry, 10)),
      space.claimed_by !== null && space.claimed_by !== undefined
        ? seatMark(x + SPACE_W - 16, y + 10, space.claimed_by, 6, { 'data-claim': space.claimed_by })
        : null), `space ${space.space}: ${words(space.city)}, ${words(space.industry)}`,
    said(texts, 'board', 'space')));
  });
  // pawns
  const at = {};
  for (const p of players) {
    const pos = p.position || 0;
    const n = (at[pos] = (at[pos] || 0) + 1) - 1;
    let x; let y;
    if (pos <= 0) { x = 14 + (n % 4) * 12; y = 72; }
    else if (pos > track.length) { x = finish.x + 14 + n * 12; y = finish.y + 30; }
    else { const s = spaceAt(pos - 1); x = s.x + 50 + (n % 3) * 11 - 22; y = s.y + SPACE_H - 8 - Math.floor(n / 3) * 11; }
    parts.push(pawn(x, y, p.seat, 6));
  }
  let y = 30 + rows * (SPACE_H + 14) + 60;
  // industries: points, controller, played per player
  parts.push(t(10, y, 'Industries', { 'font-weight': 700 }));
  const iw = narrow ? Math.floor((W - 26) / 2) : 175;
  let flow = new Flow(10, y + 8, W - 10, 8);
  industries.forEach((ind) => {
    const { x, y: top } = flow.place(iw, 44);
    const owner = (view.controller || {})[ind];
    parts.push(explained(svg('g', { 'data-industry': ind },
      svg('rect', { x, y: top, width: iw, height: 44, rx: 6, fill: '#fff', stroke: owner === null || owner === undefined ? '#cbd5e1' : seatColour(owner), 'stroke-width': 3 }),
      t(x + 8, top + 17, short(`${words(ind)} · ${(view.industry_points || {})[ind] ?? '?'} pts`, Math.floor((iw - 12) / 7.2)), { 'font-weight': 600 }),
      t(x + 8, top + 36, owner === null || owner === undefined ? 'no controller' : `seat ${owner} controls`)), words(ind), said(texts, 'industry', ind)));
  });
  y = flow.bottom + 28;
  parts.push(t(10, y, 'Cities (points of their row)', { 'font-weight': 700 }));
  flow = new Flow(10, y + 10, W - 10, 4);
  cities.forEach((c) => {
    const { x, y: top } = flow.place(narrow ? Math.floor((W - 24) / 2) : 145, 16);
    parts.push(explained(svg('g', { 'data-city': c }, svg('rect', { x, y: top, width: 14, height: 14, fill: cityColour(c), stroke: '#64748b' }),
      t(x + 18, top + 12, `${words(c)} ${view.city_points[c]}`)), words(c), said(texts, 'city', c)));
  });
  y = flow.bottom + 30;
  parts.push(explained(svg('g', { 'data-crash': view.counter ?? 0 }, t(10, y, `Crash counter ${view.counter ?? 0} of ${view.crash_limit ?? '?'}`, { 'font-weight': 700 }),
    bar(narrow ? 10 : 220, narrow ? y + 8 : y - 9, narrow ? W - 20 : 300, view.counter || 0, view.crash_limit || 1, '#dc2626')), 'Crash counter', said(texts, 'board', 'crash')));
  if (narrow) y += 40;
  const [round, rh] = para(narrow ? 10 : 560, y, `round ${view.round ?? 0} · phase ${words(view.phase || '')} · draw pile ${view.stack_count ?? 0}`, narrow ? W - 20 : W - 570);
  parts.push(round);
  y += rh + 16;
  // players
  for (const p of players) {
    const played = Object.entries(p.played || {}).filter(([, n]) => n).map(([k, n]) => `${words(k)} ${n}`).join(', ') || 'nothing';
    const say = [`$${p.money} · ${p.hand_count} cards · track ${p.position} · markers ${p.big_markers}/${p.small_markers}`, `played: ${played}`,
      (p.controls || []).length ? `controls ${p.controls.map(words).join(', ')}` : 'controls no industry'];
    const line = [seatTag(10, y, p.seat, `seat ${p.seat}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`)];
    let row = narrow ? y + 18 : y;
    for (const text of say) {
      const [node, h] = para(narrow ? 24 : 110, row, text, narrow ? W - 34 : W - 120);
      line.push(node);
      row += h;
    }
    parts.push(svg('g', { 'data-player': p.seat }, line));
    y = row + 14;
  }
  const auction = view.auction;
  if (auction && Object.keys(auction.cards || {}).length) {
    y += 6;
    const cards = Object.entries(auction.cards).map(([k, n]) => `${n} × ${words(k)}`).join(', ');
    const high = auction.high_bidder === null || auction.high_bidder === undefined ? 'no bid yet' : `high bid $${auction.high_bid} by seat ${auction.high_bidder}`;
    const [node, h] = para(10, y, `Auction: ${cards} — ${high}; seat ${auction.bidder} to bid`, W - 20, { 'font-weight': 600 });
    parts.push(explained(svg('g', { 'data-auction': 1 }, node), 'Auction', said(texts, 'board', 'auction')));
    y += h + 4;
  }
  if ((view.move_choices || []).length) {
    const [node, h] = para(10, y, `Move choices: ${view.move_choices.map(words).join(', ')}`, W - 20);
    parts.push(node);
    y += h + 4;
  }
  return frame(W, y + 8, 'Moderne Zeiten board', ...parts);
}

export function hand(view, texts = {}) {
  if (!view.hand) return null;
  const cards = Object.entries(view.hand).filter(([, n]) => n > 0);
  return el('div', { class: 'cards' }, cards.length ? cards.map(([k, n]) => explained(el('span', { class: 'card', 'data-card': k }, `${words(k)} × ${n}`),
    words(k), said(texts, 'card', k)))
    : el('span', { class: 'muted' }, 'no cards'));
}

// A legal move in words for its control (/web/controls.js): the auction's cards, where a move takes the Zeppelin,
// and a warning before a play that crashes the market, a move to Finish (it ends the game) and a bid of all your
// money.
export function describe(choice, view, texts = {}) {
  const b = choice.body || {};
  const mine = (view.players || []).find((p) => p.seat === view.seat) || (view.players || []).find((p) => (view.to_act || []).includes(p.seat)) || {};
  const auction = view.auction || {};
  const lot = Object.entries(auction.cards || {}).map(([k, n]) => `${n} × ${words(k)}`).join(', ');
  switch (choice.type) {
    case 'bid':
      return { label: `bid for ${lot || 'the cards on auction'}`, fields: { amount: 'million' }, object: 'bid',
        warn: (body) => (body.amount >= (mine.money ?? Infinity) ? `This bid is all your money ($${mine.money}).` : null) };
    case 'pass':
      return { label: lot ? `pass (out of the auction for ${lot})` : 'pass' };
    case 'draw':
      return { label: 'draw 2 cards (ends your turn)' };
    case 'play':
      return { label: 'play cards in front of you', fields: { cards: 'cards to play' }, object: 'play',
        warn: (body) => {
          const n = Object.values(body.cards || {}).reduce((a, c) => a + c, 0);
          const after = (view.counter || 0) + n;
          return after > (view.crash_limit ?? Infinity)
            ? `This takes the crash counter to ${after}, above ${view.crash_limit}: the market crashes after your move (the industries with the most cards in play go back into the stack).`
            : null;
        } };
    case 'move': {
      if (b.to === 'finish') return { label: 'move to Finish (ends the game)', warn: () => 'Moving to Finish ends the game now and scores it.' };
      if (b.to === null || b.to === undefined) return { label: 'stay where you are' };
      const next = (view.track || []).find((s) => s.space > (mine.position || 0) && s.industry === b.to && (s.claimed_by === null || s.claimed_by === undefined));
      return { label: next ? `move to space ${next.space} (${words(next.city)}, ${words(b.to)})` : `move along ${words(b.to)}` };
    }
    default:
      return null;
  }
}
