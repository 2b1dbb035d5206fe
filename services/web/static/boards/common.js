// Pieces the boards share.
import { svg, seatColour, words } from '../dom.js';

export const t = (x, y, text, attrs = {}) => svg('text', { x, y, 'font-size': 12, ...attrs }, text);

export function frame(width, height, title, ...children) {
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title, 'font-family': 'system-ui, sans-serif' },
    svg('title', {}, title), ...children);
}

export function pawn(x, y, seat, r = 7) {
  return svg('circle', { cx: x, cy: y, r, fill: seatColour(seat), stroke: '#111', 'stroke-width': 1, 'data-seat': seat });
}

export function seatTag(x, y, seat, label, attrs = {}) {
  return svg('g', {}, svg('rect', { x, y: y - 11, width: 14, height: 14, rx: 3, fill: seatColour(seat) }),
    t(x + 20, y, label, { 'font-weight': 600, ...attrs }));
}

export function bar(x, y, width, value, max, colour, label) {
  const w = max > 0 ? Math.max(0, Math.min(1, value / max)) * width : 0;
  return svg('g', {}, svg('rect', { x, y, width, height: 10, fill: '#e2e8f0', rx: 2 }),
    svg('rect', { x, y, width: w, height: 10, fill: colour, rx: 2 }),
    label ? t(x + width + 6, y + 9, label, { 'font-size': 11 }) : null);
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
