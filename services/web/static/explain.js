// The pieces of a board explained where they are played: every piece a game's board marks with data-explain
// (a card, a Traitor, an event, a die) says its words on hover (its SVG <title> or HTML title) and, tapped or
// clicked (or chosen with Enter), in the line under the board; "What the pieces on the table do" lists them all.
import { el } from './dom.js';

export function explainer() {
  let scope = null;  // where the pieces are: the board and the hand
  const line = el('p', { class: 'explain', id: 'explain', 'aria-live': 'polite' });
  const list = el('dl', { class: 'glossary-list' });
  const glossary = el('details', { class: 'glossary panel', id: 'glossary' }, el('summary', {}, 'What the pieces on the table do'), list);
  const tell = (target) => {
    const piece = target && target.closest ? target.closest('[data-explain]') : null;
    if (!piece || !scope.contains(piece)) return;
    line.textContent = `${piece.dataset.name || ''}${piece.dataset.name ? ': ' : ''}${piece.dataset.explain}`;
    scope.querySelectorAll('.explained').forEach((n) => n.classList.remove('explained'));
    piece.classList.add('explained');
  };
  return {
    nodes: [line, glossary],
    update(root) {  // after each redraw: the list of what is on the table now, each piece once
      if (scope !== root) {
        scope = root;
        root.addEventListener('click', (e) => tell(e.target));
        root.addEventListener('keydown', (e) => { if ((e.key === 'Enter' || e.key === ' ') && e.target.dataset && e.target.dataset.explain) { tell(e.target); e.preventDefault(); } });
      }
      const seen = new Map();  // each text once, with the names of the pieces it explains
      for (const piece of root.querySelectorAll('[data-explain]')) {
        if (glossary.contains(piece)) continue;
        const names = seen.get(piece.dataset.explain) || [];
        const name = piece.dataset.name || '';
        if (!names.includes(name)) names.push(name);
        seen.set(piece.dataset.explain, names);
      }
      const named = (names) => (names.length > 3 ? `${names.slice(0, 2).join(', ')} and ${names.length - 2} more` : names.join(', '));
      list.replaceChildren(...[...seen.entries()].flatMap(([text, names]) => [el('dt', {}, named(names)), el('dd', {}, text)]));
      glossary.hidden = seen.size === 0;
    },
  };
}

// The width a board is drawn to: its box's inner width less the SVG's border (style.css: 1 px each side)
export const boardWidthOf = (node) => Math.max(0, (node.clientWidth || 960) - 2);
