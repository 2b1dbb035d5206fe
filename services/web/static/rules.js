// A game's rules in short (#/rules/<game>): the Markdown its package keeps (GET /games gives its URL), shown as
// text: headings, paragraphs, lists, tables, **strong** and *emphasis*. Nothing of it is parsed as HTML.
import { el, clear } from './dom.js';
import { games, title, rulesOf } from './boards/index.js';

function inline(text) {  // **strong**, *emphasis* and `code` as elements, the rest as text
  const out = [];
  const re = /(\*\*([^*]+)\*\*|\*([^*]+)\*|`([^`]+)`)/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(m[2] ? el('strong', {}, m[2]) : m[3] ? el('em', {}, m[3]) : el('code', {}, m[4]));
    at = re.lastIndex;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

export function markdown(source) {
  const blocks = [];
  const lines = source.replace(/\r/g, '').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i += 1; continue; }
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    if (heading) { blocks.push(el(`h${heading[1].length}`, {}, inline(heading[2]))); i += 1; continue; }
    if (line.trim().startsWith('|')) {
      const rows = [];
      while (i < lines.length && lines[i].trim().startsWith('|')) { rows.push(cells(lines[i])); i += 1; }
      const body = rows.filter((r, n) => n > 0 && !r.every((c) => /^:?-+:?$/.test(c)));
      blocks.push(el('table', { class: 'rules-table', tabindex: 0 }, el('thead', {}, el('tr', {}, rows[0].map((c) => el('th', { scope: 'col' }, inline(c))))),
        el('tbody', {}, body.map((r) => el('tr', {}, r.map((c) => el('td', {}, inline(c))))))));
      continue;
    }
    const item = /^(\s*)(-|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      const ordered = item[2] !== '-';
      const list = el(ordered ? 'ol' : 'ul', {});
      let last = null;
      while (i < lines.length && lines[i].trim()) {
        const m = /^(\s*)(-|\d+\.)\s+(.*)$/.exec(lines[i]);
        if (m && m[1].length === 0) { last = el('li', {}, inline(m[3])); list.append(last); }
        else if (m && last) {  // a nested item
          let sub = last.querySelector('ul');
          if (!sub) { sub = el('ul', {}); last.append(sub); }
          sub.append(el('li', {}, inline(m[3])));
        } else if (last) last.append(' ', ...inline(lines[i].trim()));
        i += 1;
      }
      blocks.push(list);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^(#|\||\s*(-|\d+\.)\s)/.test(lines[i])) { para.push(lines[i].trim()); i += 1; }
    blocks.push(el('p', {}, inline(para.join(' '))));
  }
  return blocks;
}

export function rulesPage(root, game) {
  clear(root, el('h1', {}, 'Rules'), el('p', { class: 'muted' }, 'Loading…'));
  let gone = false;
  (async () => {
    const listed = await games().catch(() => []);
    if (gone) return;
    const tabs = el('nav', { class: 'tabs', 'aria-label': 'games' }, listed.filter((g) => g.rules).map((g) =>
      el('a', { class: `tab${g.name === game ? ' current' : ''}`, href: `#/rules/${encodeURIComponent(g.name)}`, 'aria-current': g.name === game ? 'page' : null }, g.title)));
    const url = game ? rulesOf(game) : null;
    if (!url) {
      clear(root, el('h1', {}, 'Rules'), tabs, el('p', {}, game ? `There are no rules written out for ${game}.` : 'Pick a game.'));
      return;
    }
    try {
      const answer = await fetch(url);
      if (!answer.ok) throw new Error(`${answer.status}`);
      const text = await answer.text();
      if (gone) return;
      const blocks = markdown(text);
      const heading = blocks[0] && blocks[0].tagName === 'H1' ? blocks.shift().textContent : `${title(game)} in short`;
      clear(root, el('h1', {}, heading), tabs, el('article', { class: 'panel rules', id: 'rules', 'data-game': game }, blocks),
        el('p', { class: 'muted' }, 'On the table, hover or tap a card, a Traitor or an event to read what it does.'));
    } catch (e) {
      clear(root, el('h1', {}, 'Rules'), tabs, el('p', {}, `The rules could not be loaded (${e.message}).`));
    }
  })();
  return () => { gone = true; };
}
