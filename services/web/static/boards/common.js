// Pieces the boards share. A board is drawn to the width it is shown at (`width`, CSS pixels: the generic layer
// passes its box's width, and redraws when it changes), so one unit of its SVG is one pixel and its text, never
// below 12 units, is never below 12 px: on a phone the pieces flow onto more rows instead of shrinking.
import { svg, seatColour, words } from '../dom.js';

export const t = (x, y, text, attrs = {}) => svg('text', { x, y, 'font-size': 12, ...attrs }, text);

export function frame(width, height, title, ...children) {
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title, 'font-family': 'system-ui, sans-serif' },
    svg('title', {}, title), ...children);
}

// Each seat has a shape as well as a colour, so seats are told apart without colour (a colour-blind player, a
// grey print): the pawns, the claim marks and the seat tags of the boards all use it.
export const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'pentagon', 'hexagon', 'star', 'cross'];
export const seatShape = (seat) => SHAPES[seat % SHAPES.length];

function points(cx, cy, r, n, turn = -Math.PI / 2, inner = null) {
  const out = [];
  const steps = inner === null ? n : n * 2;
  for (let i = 0; i < steps; i++) {
    const rr = inner !== null && i % 2 ? inner : r;
    const a = turn + (i * 2 * Math.PI) / steps;
    out.push(`${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`);
  }
  return out.join(' ');
}

/** The seat's mark centred on (cx, cy), of radius r: its shape filled with its colour, titled "seat N". */
export function seatMark(cx, cy, seat, r = 7, attrs = {}) {
  const shape = seatShape(seat);
  const look = { fill: seatColour(seat), stroke: '#111', 'stroke-width': 1 };
  const body = shape === 'circle' ? svg('circle', { cx, cy, r, ...look })
    : shape === 'square' ? svg('rect', { x: cx - r * 0.85, y: cy - r * 0.85, width: r * 1.7, height: r * 1.7, ...look })
    : shape === 'triangle' ? svg('polygon', { points: points(cx, cy + r * 0.15, r * 1.1, 3), ...look })
    : shape === 'diamond' ? svg('polygon', { points: points(cx, cy, r * 1.1, 4), ...look })
    : shape === 'pentagon' ? svg('polygon', { points: points(cx, cy, r, 5), ...look })
    : shape === 'hexagon' ? svg('polygon', { points: points(cx, cy, r, 6, 0), ...look })
    : shape === 'star' ? svg('polygon', { points: points(cx, cy, r * 1.15, 5, -Math.PI / 2, r * 0.5), ...look })
    : svg('polygon', { points: '-0.35,-1 0.35,-1 0.35,-0.35 1,-0.35 1,0.35 0.35,0.35 0.35,1 -0.35,1 -0.35,0.35 -1,0.35 -1,-0.35 -0.35,-0.35'
      .split(' ').map((p) => p.split(',').map((v, i) => (i ? cy : cx) + Number(v) * r).join(',')).join(' '), ...look });
  return svg('g', { 'data-seat': seat, 'data-shape': shape, ...attrs }, svg('title', {}, `seat ${seat}`), body);
}

export function pawn(x, y, seat, r = 7) {
  return seatMark(x, y, seat, r, { 'data-pawn': seat });
}

export function seatTag(x, y, seat, label, attrs = {}) {
  return svg('g', {}, seatMark(x + 7, y - 4, seat, 7), t(x + 20, y, label, { 'font-weight': 600, ...attrs }));
}

export function bar(x, y, width, value, max, colour, label) {
  const w = max > 0 ? Math.max(0, Math.min(1, value / max)) * width : 0;
  return svg('g', {}, svg('rect', { x, y, width, height: 10, fill: '#e2e8f0', rx: 2 }),
    svg('rect', { x, y, width: w, height: 10, fill: colour, rx: 2 }),
    label ? t(x + width + 6, y + 9, label) : null);
}

export const PALETTE = ['#fde68a', '#bfdbfe', '#bbf7d0', '#fecaca', '#ddd6fe', '#fbcfe8', '#c7d2fe', '#a5f3fc', '#fed7aa', '#e9d5ff'];
export function colourOf(names) {
  const map = {};
  names.forEach((n, i) => { map[n] = PALETTE[i % PALETTE.length]; });
  return (n) => map[n] || '#e5e7eb';
}

export const short = (name, n = 10) => { const w = words(name); return w.length > n ? w.slice(0, n - 1) + '…' : w; };

// A piece explained (see /web/explain.js): its words on hover (an SVG <title>, an HTML title), on tap or click and
// with the keyboard (it takes the focus). name: what the piece is ("Culture"); text: what it does. A piece without
// words (none in the game's texts) is left as it is.
export function explained(node, name, text) {
  if (!text) return node;
  node.dataset.explain = text;
  node.dataset.name = name;
  node.setAttribute('tabindex', '0');
  if (node instanceof SVGElement) {
    node.prepend(svg('title', {}, `${name}: ${text}`));
    node.classList.add('piece');
  } else {
    node.title = `${name}: ${text}`;
    node.classList.add('piece');
  }
  return node;
}

// The words of a piece: texts[kind][name] (the game's texts), or undefined.
export const said = (texts, kind, name) => (texts && texts[kind] ? texts[kind][name] : undefined);

export const MIN_WIDTH = 340;
export const boardWidth = (width) => Math.round(Math.max(MIN_WIDTH, Math.min(width || 960, 1400)));

// About how many characters of 12 px text fit in `width` pixels (bold system-ui averages under 7.2 px a character)
export const fits = (width, size = 12) => Math.max(8, Math.floor(width / (size * 0.6)));

// A text broken into lines of at most `width` pixels, at word boundaries
export function lines(text, width, size = 12) {
  const most = fits(width, size);
  const out = [];
  let line = '';
  for (const word of String(text).split(/\s+/)) {
    if (line && (line + ' ' + word).length > most) { out.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out.map((l) => (l.length > most ? `${l.slice(0, most - 1)}…` : l));
}

// A paragraph: the text's lines from (x, y), 16 px apart; returns [node, height]
export function para(x, y, text, width, attrs = {}) {
  const ls = lines(text, width, attrs['font-size'] || 12);
  return [svg('g', {}, ls.map((l, i) => t(x, y + i * 16, l, attrs))), ls.length * 16];
}

// Pieces of a name list ("in play: Culture, Media") as lines of tspans, each piece made by piece(name) (an explained
// tspan); returns [node, height]
export function nameLines(x, y, label, names, width, piece) {
  const most = fits(width);
  const rows = [[`${label}: `]];
  let used = label.length + 2;
  if (!names.length) rows[0].push('none');
  names.forEach((name, i) => {
    const len = String(name).length + (i < names.length - 1 ? 2 : 0);
    if (used + len > most && used > 0) { rows.push([]); used = 0; }
    rows[rows.length - 1].push(piece(name));
    if (i < names.length - 1) rows[rows.length - 1].push(', ');
    used += len;
  });
  return [svg('g', {}, rows.map((r, i) => t(x, y + i * 16, r))), rows.length * 16];
}

// Boxes of one size placed left to right from (x, y), onto a new row when the next one would pass `right`
export class Flow {
  constructor(x, y, right, gap = 6) { Object.assign(this, { x0: x, x, y, right, gap, rowHeight: 0 }); }

  place(w, h) {
    if (this.x > this.x0 && this.x + w > this.right) { this.x = this.x0; this.y += this.rowHeight + this.gap; this.rowHeight = 0; }
    const at = { x: this.x, y: this.y };
    this.x += w + this.gap;
    this.rowHeight = Math.max(this.rowHeight, h);
    return at;
  }

  get bottom() { return this.y + this.rowHeight; }
}
