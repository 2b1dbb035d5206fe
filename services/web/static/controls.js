// The seat's legal commands (its view record's `legal`, schemas/legal.py) as controls: one row per move, each
// free field an editor that starts empty (a person picks every value: none is chosen for them), and a button that
// names what it does. The game's board module may describe its moves (`describe(choice, view, texts)`, below):
// the button's words ("buy Culture for 3"), the words of a field, a group (choices that differ only in how they
// are paid become one row with a choice of payment), an alias to leave out (no two controls do the same), and a
// warning for a consequential move, which then asks to be confirmed in its row before it is sent.
import { el, words, valueText, bodyText } from './dom.js';

function countsEditor(spec, asList, label) {
  const inputs = {};
  const box = el('span', { class: 'field counts', 'data-min-total': spec.min_total || 0 });
  for (const [k, m] of Object.entries(spec.max)) {
    if (m <= 0) continue;
    const input = el('input', { type: 'number', min: 0, max: m, value: 0, 'data-key': k, 'aria-label': `${label}: ${words(k)}` });
    inputs[k] = input;
    box.append(el('label', {}, `${words(k)} `, input, ` /${m}`));
  }
  box.append(el('span', { class: 'muted' }, spec.optional ? ` (up to ${spec.max_total} in all, or none)` : ` (${spec.min_total}–${spec.max_total} in all)`));
  const get = () => {
    const out = {};
    for (const [k, input] of Object.entries(inputs)) { const n = parseInt(input.value, 10) || 0; if (n) out[k] = n; }
    if (!asList) return out;
    return Object.keys(spec.max).flatMap((k) => Array(out[k] || 0).fill(k));
  };
  const total = () => Object.values(inputs).reduce((n, input) => n + (parseInt(input.value, 10) || 0), 0);
  return { node: box, get, missing: () => (total() < (spec.min_total || 0) ? `choose at least ${spec.min_total} in all` : null) };
}

function editor(name, spec, label, object) {
  const made = editorOf(name, spec, label, object);
  made.node.dataset.field = name;
  return made;
}

function editorOf(name, spec, label, object) {
  const named = `${label}: ${object}`;  // its accessible name says what it is for: the field and the move
  const tag = el('span', {}, `${label}:`);
  switch (spec.kind) {
    case 'int': {
      const input = el('input', { type: 'number', min: spec.min, max: spec.max, value: '', placeholder: `${spec.min}–${spec.max}`, name, 'aria-label': named });
      return { node: el('span', { class: 'field' }, tag, input, el('span', { class: 'muted' }, `${spec.min}–${spec.max}`)),
               get: () => parseInt(input.value, 10), missing: () => (input.value.trim() === '' ? `choose the ${label}` : null) };
    }
    case 'one_of': {
      const select = el('select', { name, 'aria-label': named }, el('option', { value: '', selected: true }, 'choose…'),
        spec.values.map((v, i) => el('option', { value: i }, valueText(v))));
      return { node: el('span', { class: 'field' }, tag, select), get: () => spec.values[parseInt(select.value, 10)],
               missing: () => (select.value === '' ? `choose the ${label}` : null) };
    }
    case 'counts':
    case 'multiset': {
      const ed = countsEditor(spec, spec.kind === 'multiset', named);
      return { node: el('span', { class: 'field' }, tag, ed.node), get: ed.get, missing: ed.missing };
    }
    case 'subset': {
      const boxes = spec.items.map((item, i) => el('input', { type: 'checkbox', 'data-item': i, 'aria-label': `${named}: ${valueText(item)}` }));
      const count = () => boxes.filter((b) => b.checked).length;
      return {
        node: el('span', { class: 'field' }, tag, spec.items.map((item, i) => el('label', {}, boxes[i], ` ${valueText(item)}`)),
          el('span', { class: 'muted' }, `(${spec.min}–${spec.max})`)),
        get: () => spec.items.filter((_, i) => boxes[i].checked),
        missing: () => (count() < (spec.min || 0) ? `tick at least ${spec.min}` : null),
      };
    }
    case 'text': {  // starts empty; an optional field left empty is left out of the body
      const input = el('input', { type: 'text', name, maxlength: spec.max_length, 'aria-label': named,
                                  placeholder: spec.optional ? '(optional)' : '' });
      const least = spec.min_length || 0;
      return { node: el('span', { class: 'field' }, tag, input),
               get: () => (spec.optional && input.value === '' ? undefined : input.value),
               missing: () => (!spec.optional && [...input.value].length < least ? `write at least ${least} characters for the ${label}` : null) };
    }
    case 'order': {
      const order = spec.items.map((_, i) => i);
      const list = el('ol', { class: 'order' });
      const draw = () => {
        list.replaceChildren(...order.map((idx, pos) => el('li', {},
          el('button', { type: 'button', 'aria-label': `move ${valueText(spec.items[idx])} up`, disabled: pos === 0, onclick: () => { [order[pos - 1], order[pos]] = [order[pos], order[pos - 1]]; draw(); } }, '↑'),
          el('button', { type: 'button', 'aria-label': `move ${valueText(spec.items[idx])} down`, disabled: pos === order.length - 1, onclick: () => { [order[pos + 1], order[pos]] = [order[pos], order[pos + 1]]; draw(); } }, '↓'),
          ` ${valueText(spec.items[idx])}`)));
      };
      draw();
      return { node: el('span', { class: 'field' }, tag, list), get: () => order.map((i) => spec.items[i]), missing: () => null };
    }
    default:
      return { node: el('span', { class: 'field muted' }, `${label}: (unknown kind ${spec.kind})`), get: () => undefined, missing: () => null };
  }
}

const plain = (choice) => ({ label: words(choice.type) });

// Rows of moves: the legal choices as the game describes them, aliases left out, each group of choices one row,
// and the choices of a type the game merges (they differ only in which fields they have, as a trade's sides) one
// row with every field, each of those that not all have left empty when unused.
function rowsOf(legal, describe) {
  const rows = [];
  const byGroup = new Map();
  legal.forEach((choice, index) => {
    const said = { ...plain(choice), ...(describe(choice) || {}) };
    if (said.hide) return;
    const hasFree = Object.keys(choice.free || {}).length > 0;
    const key = said.merge ? `merge:${choice.type}` : said.group && !hasFree ? `${choice.type}:${said.group}` : null;
    const row = key && byGroup.get(key);
    if (row && said.merge) { row.merged.push({ choice, index }); return; }
    if (row) {
      if (!row.options.some((o) => o.label === said.option)) row.options.push({ label: said.option, choice, index, said });
      return;
    }
    const made = { label: said.label, options: [{ label: said.option, choice, index, said }], merged: said.merge ? [{ choice, index }] : null };
    if (key) byGroup.set(key, made);
    rows.push(made);
  });
  for (const row of rows) {
    if (!row.merged) continue;
    const free = {};
    for (const { choice } of [...row.merged].sort((a, b) => Object.keys(b.choice.free || {}).length - Object.keys(a.choice.free || {}).length)) {
      for (const [name, spec] of Object.entries(choice.free || {})) if (!free[name]) free[name] = spec;
    }
    const always = Object.keys(free).filter((name) => row.merged.every(({ choice }) => name in (choice.free || {})));
    row.fields = Object.entries(free).map(([name, spec]) => [name, always.includes(name) ? spec : { ...spec, min_total: 0, optional: true }]);
  }
  return rows;
}

const used = (value) => (Array.isArray(value) ? value.length > 0 : value && typeof value === 'object' ? Object.keys(value).length > 0 : value !== undefined);

// send(type, body) -> Promise of the result message; the row shows a refusal where the player acted.
// describe(choice) -> {label, option, optionLabel, group, hide, fields: {name: label}, warn(body)} or null (the game's
// words: the button, the choices of a group, the words of its fields, an alias to leave out, a warning)
export function controls(legal, send, describe = () => null) {
  const box = el('div', { class: 'controls', id: 'controls' });
  const enable = (on) => { for (const b of box.querySelectorAll('button.send')) b.disabled = !on; };
  rowsOf(legal, describe).forEach((row, n) => {
    const first = row.options[0];
    const { choice, said } = first;
    const free = (row.fields || Object.entries(choice.free || {})).map(([name, spec]) => [name, editor(name, spec, (said.fields || {})[name] || words(name), row.label)]);
    const fixed = said.label === words(choice.type) ? bodyText(choice.body) : '';  // (the game's words say it already)
    const why = el('span', { class: 'why', role: 'status' });
    const pick = row.options.length > 1
      ? el('select', { class: 'pay', 'aria-label': `${said.optionLabel || 'how'}: ${row.label}` }, row.options.map((o, i) => el('option', { value: i, 'data-index': o.index }, o.label)))
      : null;
    const button = el('button', { class: 'send primary', type: 'button' }, free.length ? `${row.label} ▸` : row.label);
    const confirmBox = el('span', { class: 'confirming', hidden: true });
    const line = el('div', { class: 'choice', 'data-type': choice.type, 'data-index': first.index, 'data-row': n,
      'data-merged': row.merged ? row.merged.map((m) => m.index).join(' ') : null },
      button, fixed ? el('span', {}, fixed) : null, pick ? el('label', { class: 'field' }, `${said.optionLabel || 'how'}: `, pick) : null,
      free.map(([, ed]) => ed.node), confirmBox, why);
    const chosen = () => (pick ? row.options[parseInt(pick.value, 10)] : first);
    async function go(body, option) {
      why.textContent = '';
      enable(false);
      try {
        const answer = await send(option.choice.type, body);
        if (answer && answer.result && answer.result.status === 'rejected') {
          why.textContent = `Refused: ${answer.result.reason || answer.result.code}`;
          line.dataset.rejected = answer.result.code || 'rejected';
          enable(true);
        } else if (answer && answer.pending) {
          why.textContent = 'Sent; the service has not decided yet…';
        }
      } catch (e) {
        why.textContent = `Not sent: ${e.detail || e.message}`;
        enable(true);
      }
    }
    button.addEventListener('click', () => {
      let option = chosen();
      const missing = free.map(([, ed]) => ed.missing()).find(Boolean);
      if (missing) { why.textContent = `First ${missing}.`; line.dataset.missing = 'yes'; return; }
      delete line.dataset.missing;
      const body = { ...option.choice.body };
      for (const [name, ed] of free) {
        const value = ed.get();
        if (value !== undefined) body[name] = value;  // (an optional field left empty is left out)
      }
      if (row.merged) {  // the choice with exactly the fields given
        const given = new Set(free.filter(([name]) => used(body[name])).map(([name]) => name));
        const match = row.merged.find(({ choice: c }) => Object.keys(c.free || {}).length === given.size && Object.keys(c.free || {}).every((k) => given.has(k)));
        if (!match) { why.textContent = 'First fill in at least one side.'; line.dataset.missing = 'yes'; return; }
        for (const name of Object.keys(body)) if (!given.has(name) && !(name in (match.choice.body || {}))) delete body[name];
        option = { ...option, choice: match.choice };
      }
      const warning = option.said.warn ? option.said.warn(body) : null;
      if (!warning) { go(body, option); return; }
      // a consequential move: said, and sent only once confirmed
      button.hidden = true;
      confirmBox.hidden = false;
      confirmBox.replaceChildren(el('span', { class: 'warning', role: 'alert' }, `${warning} `),
        el('button', { type: 'button', class: 'confirm primary', onclick: () => { button.hidden = false; confirmBox.hidden = true; go(body, option); } }, `Yes, ${option.said.label || row.label}`),
        el('button', { type: 'button', class: 'cancel', onclick: () => { button.hidden = false; confirmBox.hidden = true; button.focus(); } }, 'Cancel'));
      confirmBox.querySelector('.confirm').focus();
    });
    box.append(line);
  });
  return box;
}
