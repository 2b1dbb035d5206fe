// Modern World: the tableau of resource cards with their prices and production, the market row with each card's
// reward, the event and what it does, the auction, and each player's tokens (against their capacity), the cards
// in play and lasting events (each explained: /web/explain.js) and in hand (as a count: only the own hand is shown,
// below the board). texts: the game's pieces in words (services/games/modern_world/texts.py).
import { el, svg, seatColour, words, valueText } from '/web/dom.js';
import { t, frame, seatTag, short, explained, said, boardWidth, Flow, para, nameLines } from '/web/boards/common.js';

const TOKENS = ['victory', 'influence', 'money', 'materials', 'labor', 'research', 'action'];
const TOKEN_COLOURS = { victory: '#a16207', influence: '#7c3aed', money: '#15803d', materials: '#92400e', labor: '#be123c', research: '#0369a1', action: '#475569' };

function card(x, y, w, h, title, lines_, attrs = {}) {
  return svg('g', attrs, svg('rect', { x, y, width: w, height: h, rx: 6, fill: '#fffbeb', stroke: '#b45309' }),
    t(x + 6, y + 17, short(title, Math.floor((w - 8) / 7.5)), { 'font-weight': 600 }),
    lines_.map((line, i) => (line ? t(x + 6, y + 33 + i * 15, line, { fill: i === lines_.length - 1 ? '#111827' : '#334155' }) : null)));
}

const tspanOf = (kind, texts) => (name) => explained(svg('tspan', { 'data-card': name }, name), name, said(texts, kind, name));

export function board(view, seat, texts = {}, width = 960) {
  const W = boardWidth(width);
  const narrow = W < 700;
  const parts = [];
  let y = 22;
  parts.push(t(10, y, `Turn ${view.turn ?? 0} · ${words(view.phase || '')} · leader seat ${view.leader ?? '–'}`, { 'font-weight': 700 }));
  const decks = `decks: resources ${view.resource_deck_count ?? 0}, market ${view.market_deck_count ?? 0}, events ${view.event_deck_count ?? 0}`;
  if (narrow) { y += 18; parts.push(t(10, y, decks)); } else parts.push(t(W - 10, y, decks, { 'text-anchor': 'end' }));
  y += 24;
  parts.push(t(10, y, 'Tableau (price in action and research)', { 'font-weight': 600 }));
  const cw = narrow ? Math.floor((W - 20 - 2 * 6) / 3) : 88;
  let flow = new Flow(10, y + 8, W - 10);
  (view.tableau || []).forEach((slot, i) => {
    const gains = (said(texts, 'resource_short', slot.card) || '').split(' +').map((g) => g.replace(/^\+/, ''));
    const at = flow.place(cw, 82);
    parts.push(explained(card(at.x, at.y, cw, 82, slot.card, [...gains.slice(0, 2).map((g) => (g ? `+${g}` : '')), `price ${slot.price}`],
      { 'data-tableau': i, 'data-card': slot.card }), slot.card, said(texts, 'resource', slot.card)));
  });
  y = flow.bottom + 26;
  const row = (view.market_row || []).map((m) => (typeof m === 'string' ? m : m.card ?? valueText(m)));
  const [marketHead, mh] = para(10, y, row.length ? 'Market (auctioned one by one; the reward goes to the winner)' : 'Market: empty', W - 20, { 'font-weight': 600 });
  parts.push(marketHead);
  y += mh - 8;
  if (row.length) {
    flow = new Flow(10, y, W - 10);
    const mw = narrow ? Math.floor((W - 26) / 2) : 128;
    row.forEach((name, i) => {
      const at = flow.place(mw, 52);
      parts.push(explained(card(at.x, at.y, mw, 52, name, [`reward ${said(texts, 'market_short', name) || '?'}`],
        { 'data-market': i, 'data-card': name }), name, said(texts, 'market', name)));
    });
    y = flow.bottom + 8;
  }
  y += 14;
  if (view.current_event) {
    const effect = said(texts, 'event', view.current_event);
    const [node, h] = para(10, y, `Event: ${view.current_event}${effect ? ' — ' + effect : ''}`, W - 20, { 'font-weight': 600 });
    parts.push(explained(svg('g', { 'data-event': view.current_event }, node), view.current_event, effect));
    y += h + 2;
  }
  const a = view.auction;
  if (a) {
    const high = a.high_bidder === null || a.high_bidder === undefined ? 'no bid yet' : `high bid ${a.high_bid} by seat ${a.high_bidder}`;
    const item = a.item === 'leader' ? 'the Leader Marker' : a.item;
    const [node, h] = para(10, y, `Auction for ${item}: ${high}; seat ${a.to_bid} to bid (in influence)`, W - 20, { 'font-weight': 600 });
    parts.push(explained(svg('g', { 'data-auction': a.item }, node), item, said(texts, a.item === 'leader' ? 'board' : 'market', a.item)));
    y += h + 2;
  }
  if ((view.trades || []).length) { parts.push(t(10, y, `Trades offered: ${view.trades.length}`)); y += 18; }
  y += 10;
  const left = narrow ? 14 : 130;  // where a player's tokens start: beside the seat's name, or under it
  const bw = narrow ? Math.floor((W - left - 10 - 2 * 6) / 3) : 110;
  for (const p of view.players || []) {
    const top = y;
    parts.push(seatTag(14, y + 12, p.seat, `seat ${p.seat}${(view.to_act || []).includes(p.seat) ? ' ◀' : ''}`),
      t(narrow ? 110 : 14, narrow ? y + 12 : y + 30, `${p.hand_count} in hand`));
    if (p.nation) parts.push(explained(svg('g', { 'data-nation': p.nation }, t(narrow ? 200 : 14, narrow ? y + 12 : y + 46, p.nation)), p.nation, said(texts, 'nation', p.nation)));
    flow = new Flow(left, narrow ? y + 22 : y, W - 10);
    TOKENS.forEach((tok) => {
      const at = flow.place(bw, 40);
      const have = (p.tokens || {})[tok] ?? 0;
      const cap = (p.capacity || {})[tok];
      parts.push(explained(svg('g', { 'data-token': tok, 'data-seat': p.seat },
        svg('rect', { x: at.x, y: at.y, width: bw, height: 40, rx: 5, fill: '#fff', stroke: TOKEN_COLOURS[tok] }),
        t(at.x + 6, at.y + 15, words(tok), { fill: TOKEN_COLOURS[tok] }),
        t(at.x + 6, at.y + 33, `${have}`, { 'font-size': 14, 'font-weight': 700 }),
        cap !== undefined ? t(at.x + 32, at.y + 33, `+${cap}/turn`, { fill: '#475569' }) : null), words(tok), said(texts, 'token', tok)));
    });
    y = Math.max(flow.bottom, narrow ? 0 : y + 50) + 18;
    const [inPlay, h1] = nameLines(left, y, 'in play', p.in_play || [], W - left - 10, tspanOf('resource', texts));
    parts.push(inPlay);
    y += h1;
    if ((p.permanent_events || []).length) {
      const [lasting, h2] = nameLines(left, y, 'lasting events', p.permanent_events, W - left - 10, tspanOf('event', texts));
      parts.push(lasting);
      y += h2;
    }
    parts.push(svg('line', { x1: 10, x2: W - 10, y1: y - 8, y2: y - 8, stroke: '#e2e8f0' }));
    parts.push(svg('rect', { x: 4, y: top - 4, width: 4, height: y - top - 6, fill: seatColour(p.seat) }));
    y += 8;
  }
  return frame(W, y, 'Modern World board', ...parts);
}

export function hand(view, texts = {}) {
  const me = (view.players || []).find((p) => p.seat === view.seat);
  if (!me || !Array.isArray(me.hand)) return null;
  return el('div', { class: 'cards' }, me.hand.length ? me.hand.map((c, i) => explained(el('span', { class: 'card', 'data-card': c, 'data-i': i },
    el('b', {}, valueText(c)), el('small', {}, said(texts, 'resource_short', c) || '')), c, said(texts, 'resource', c)))
    : el('span', { class: 'muted' }, 'no cards'));
}

// A legal move in words for its control (/web/controls.js): what it does and to what, the buys of one card one
// row with a choice of payment, and a warning before a move that spends everything of a kind.
const me = (view) => (view.players || []).find((p) => p.seat === view.seat) || (view.players || []).find((p) => Array.isArray(p.hand)) || { tokens: {}, hand: [] };
const PHASE_DONE = { resource: 'stop buying cards', investment: 'stop investing', trade: 'stop trading', build: 'stop building' };

export function describe(choice, view, texts = {}) {
  const b = choice.body || {};
  const mine = me(view);
  const tokens = mine.tokens || {};
  const auction = view.auction || {};
  const item = auction.item === 'leader' ? 'the Leader Marker' : auction.item;
  switch (choice.type) {
    case 'bid':
      return { label: `bid influence for ${item || 'the auction'}`, fields: { amount: 'influence' }, object: `bid for ${item}`,
        warn: (body) => (body.amount >= (tokens.influence ?? Infinity) ? `This bid is all your influence (${tokens.influence}).` : null) };
    case 'pass':
      return { label: auction.item ? `pass on ${item}` : 'pass' };
    case 'done':
      return { label: PHASE_DONE[view.phase] || `done with the ${words(view.phase || 'phase')}` };
    case 'buy': {
      const slot = (view.tableau || []).find((s) => s.price === b.position) || {};
      const pay = [b.action ? `${b.action} action` : '', b.research ? `${b.research} research` : ''].filter(Boolean).join(' + ') || 'nothing';
      const short = said(texts, 'resource_short', slot.card);
      return { label: `buy ${slot.card || 'card ' + b.position} for ${b.position}${short ? ` (${short})` : ''}`, group: String(b.position),
        option: pay, optionLabel: 'pay with',
        warn: () => ((b.action || 0) >= (tokens.action ?? Infinity) && (b.research || 0) >= (tokens.research ?? Infinity)
          ? `This spends all your action and research tokens.` : null) };
    }
    case 'build': {
      const dup = (mine.in_play || []).includes(b.card);
      const cost = (dup ? 7 : 5) + (view.builds_this_phase || 0);
      return { label: `build ${b.card} (${cost} materials, ${cost} labor)` };
    }
    case 'invest':
      return { label: 'invest cards (3 times their production)', fields: { cards: 'cards to invest' }, object: 'invest',
        warn: (body) => ((body.cards || []).length >= (mine.hand || []).length ? 'This invests every card in your hand.' : null) };
    case 'discard':
      return { label: `discard down to 7 cards`, fields: { cards: 'cards to discard' }, object: 'discard' };
    case 'convert':
      return { label: 'turn 3 money into tokens', hide: !(choice.free && choice.free.count), fields: { into: 'token to gain', count: 'tokens to gain' }, object: 'convert money',
        warn: (body) => (body.count * 3 >= (tokens.money ?? Infinity) ? `This spends all your money (${tokens.money}).` : null) };
    case 'pick_nation':
      return { label: `pick ${b.nation}${said(texts, 'nation', b.nation) ? ` (${said(texts, 'nation', b.nation).replace(/\.$/, '').toLowerCase()})` : ''}` };
    case 'propose_trade':
      return { label: 'propose a trade', merge: true, fields: { to: 'to seat', give_cards: 'cards you give', give_tokens: 'tokens you give', get_cards: 'cards you get', get_tokens: 'tokens you get' }, object: 'trade' };
    case 'accept_trade':
    case 'decline_trade': {
      const trade = (view.trades || []).find((t) => t.id === b.id) || {};
      return { label: `${choice.type === 'accept_trade' ? 'accept' : 'decline'} trade ${b.id} from seat ${trade.proposer ?? '?'}` };
    }
    default:
      return null;
  }
}
