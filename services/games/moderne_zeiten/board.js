// Moderne Zeiten: the track with its cities and industries, the claims and the players' pawns, the industry
// counters and their controllers, the crash counter, the auction, and each player's money and played cards; every
// piece explained (/web/explain.js) in the game's words (texts: services/games/moderne_zeiten/texts.py).
import { el, svg, seatColour, words } from '/web/dom.js';
import { t, frame, pawn, seatTag, bar, colourOf, short, explained, said } from '/web/boards/common.js';

const W = 960;
const SPACE_W = 84;
const SPACE_H = 56;
const PER_ROW = 10;

function spaceAt(index) {  // 0-based index along the snake
  const row = Math.floor(index / PER_ROW);
  const col = index % PER_ROW;
  const x = 70 + (row % 2 === 0 ? col : PER_ROW - 1 - col) * SPACE_W;
  return { x, y: 30 + row * (SPACE_H + 14) };
}

export function board(view, seat, texts = {}) {
  const track = view.track || [];
  const cities = Object.keys(view.city_points || {});
  const cityColour = colourOf(cities);
  const industries = Object.keys(view.industry_points || view.controller || {});
  const players = view.players || [];
  const parts = [];
  const rows = Math.ceil(track.length / PER_ROW) || 1;
  // start and finish
  parts.push(svg('rect', { x: 4, y: 30, width: 60, height: SPACE_H, rx: 6, fill: '#f1f5f9', stroke: '#94a3b8' }), t(12, 50, 'start'));
  const last = spaceAt(Math.max(track.length - 1, 0));
  const finish = { x: last.x, y: last.y + SPACE_H + 14 };
  parts.push(svg('rect', { x: finish.x, y: finish.y, width: SPACE_W - 6, height: 36, rx: 6, fill: '#fef3c7', stroke: '#a16207' }),
    t(finish.x + 8, finish.y + 22, `finish ${view.finish ?? ''}`));
  track.forEach((space, i) => {
    const { x, y } = spaceAt(i);
    const claim = space.claimed_by !== null && space.claimed_by !== undefined ? ` Claimed by seat ${space.claimed_by}.` : ' Unclaimed.';
    parts.push(explained(svg('g', { 'data-space': space.space },
      svg('rect', { x, y, width: SPACE_W - 6, height: SPACE_H, rx: 5, fill: cityColour(space.city), stroke: '#64748b' }),
      t(x + 4, y + 14, `${space.space}`, { fill: '#475569' }),
      t(x + 4, y + 30, short(space.city, 10), { 'font-weight': 600 }),
      t(x + 4, y + 46, short(space.industry, 10)),
      space.claimed_by !== null && space.claimed_by !== undefined
        ? svg('rect', { x: x + SPACE_W - 22, y: y + 4, width: 12, height: 12, fill: seatColour(space.claimed_by), stroke: '#111', 'data-claim': space.claimed_by })
        : null), `space ${space.space}: ${words(space.city)}, ${words(space.industry)}`,
    said(texts, 'board', 'space') ? `${said(texts, 'board', 'space')}${claim}` : undefined));
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
  industries.forEach((ind, i) => {
    const x = 10 + i * 185;
    const owner = (view.controller || {})[ind];
    parts.push(explained(svg('g', { 'data-industry': ind },
      svg('rect', { x, y: y + 8, width: 175, height: 44, rx: 6, fill: '#fff', stroke: owner === null || owner === undefined ? '#cbd5e1' : seatColour(owner), 'stroke-width': 3 }),
      t(x + 8, y + 25, `${words(ind)} · ${(view.industry_points || {})[ind] ?? '?'} pts`, { 'font-weight': 600 }),
      t(x + 8, y + 44, owner === null || owner === undefined ? 'no controller' : `controlled by seat ${owner}`)), words(ind), said(texts, 'industry', ind)));
  });
  y += 70;
  parts.push(t(10, y, 'Cities', { 'font-weight': 700 }));
  cities.forEach((c, i) => {
    const x = 70 + i * 145;
    parts.push(explained(svg('g', { 'data-city': c }, svg('rect', { x, y: y - 11, width: 14, height: 14, fill: cityColour(c), stroke: '#64748b' }),
      t(x + 18, y, `${words(c)} ${view.city_points[c]}`)), words(c), said(texts, 'city', c)));
  });
  y += 24;
  parts.push(explained(svg('g', { 'data-crash': view.counter ?? 0 }, t(10, y, `Crash counter ${view.counter ?? 0} of ${view.crash_limit ?? '?'}`, { 'font-weight': 700 }),
    bar(220, y - 9, 300, view.counter || 0, view.crash_limit || 1, '#dc2626')), 'Crash counter', said(texts, 'board', 'crash')),
    t(560, y, `round ${view.round ?? 0} · phase ${words(view.phase || '')} · draw pile ${view.stack_count ?? 0}`));
  y += 30;
  // players
  for (const p of players) {
    const played = Object.entries(p.played || {}).filter(([, n]) => n).map(([k, n]) => `${words(k)} ${n}`).join(', ') || 'nothing';
    parts.push(svg('g', { 'data-player': p.seat },
      seatTag(10, y, p.seat, `seat ${p.seat}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(110, y, `$${p.money} · ${p.hand_count} cards · track ${p.position} · markers ${p.big_markers}/${p.small_markers}`),
      t(470, y, `played: ${played}`),
      t(110, y + 17, (p.controls || []).length ? `controls ${p.controls.map(words).join(', ')}` : 'controls no industry', { fill: '#475569' })));
    y += 40;
  }
  const auction = view.auction;
  if (auction && Object.keys(auction.cards || {}).length) {
    y += 8;
    const cards = Object.entries(auction.cards).map(([k, n]) => `${n} × ${words(k)}`).join(', ');
    const high = auction.high_bidder === null || auction.high_bidder === undefined ? 'no bid yet' : `high bid $${auction.high_bid} by seat ${auction.high_bidder}`;
    parts.push(explained(svg('g', { 'data-auction': 1 }, t(10, y, `Auction: ${cards} — ${high}; seat ${auction.bidder} to bid`, { 'font-weight': 600 })),
      'Auction', said(texts, 'board', 'auction')));
    y += 20;
  }
  if ((view.move_choices || []).length) {
    parts.push(t(10, y, `Move choices: ${view.move_choices.map(words).join(', ')}`));
    y += 20;
  }
  return frame(W, y + 14, 'Moderne Zeiten board', ...parts);
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
