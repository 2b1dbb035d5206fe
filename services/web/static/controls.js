// The seat's legal commands (its view record's `legal`, schemas/legal.py) as controls: one row per choice,
// each free field an editor that starts on a legal value, and a button that sends the command.
import { el, words, valueText, bodyText } from './dom.js';

function fillTo(max, total) {  // the first keys filled up to `total`: a legal default for counts and multisets
  const counts = {};
  let left = total;
  for (const [k, m] of Object.entries(max)) {
    const n = Math.min(m, left);
    if (n > 0) { counts[k] = n; left -= n; }
  }
  return counts;
}

function countsEditor(spec, asList) {
  const start = fillTo(spec.max, spec.min_total || 0);
  const inputs = {};
  const box = el('span', { class: 'field counts' });
  for (const [k, m] of Object.entries(spec.max)) {
    if (m <= 0) continue;
    const input = el('input', { type: 'number', min: 0, max: m, value: start[k] || 0, 'data-key': k, 'aria-label': words(k) });
    inputs[k] = input;
    box.append(el('label', {}, `${words(k)} `, input, ` /${m}`));
  }
  box.append(el('span', { class: 'muted' }, ` (${spec.min_total}–${spec.max_total} in all)`));
  const get = () => {
    const out = {};
    for (const [k, input] of Object.entries(inputs)) { const n = parseInt(input.value, 10) || 0; if (n) out[k] = n; }
    if (!asList) return out;
    return Object.keys(spec.max).flatMap((k) => Array(out[k] || 0).fill(k));
  };
  return { node: box, get };
}

function editor(name, spec) {
  const label = el('span', {}, `${words(name)}:`);
  switch (spec.kind) {
    case 'int': {
      const input = el('input', { type: 'number', min: spec.min, max: spec.max, value: spec.min, name, 'aria-label': words(name) });
      return { node: el('span', { class: 'field' }, label, input, el('span', { class: 'muted' }, `${spec.min}–${spec.max}`)),
               get: () => parseInt(input.value, 10) };
    }
    case 'one_of': {
      const select = el('select', { name, 'aria-label': words(name) },
        spec.values.map((v, i) => el('option', { value: i }, valueText(v))));
      return { node: el('span', { class: 'field' }, label, select), get: () => spec.values[parseInt(select.value, 10)] };
    }
    case 'counts':
    case 'multiset': {
      const ed = countsEditor(spec, spec.kind === 'multiset');
      return { node: el('span', { class: 'field' }, label, ed.node), get: ed.get };
    }
    case 'subset': {
      const boxes = spec.items.map((item, i) => el('input', { type: 'checkbox', checked: i < (spec.min || 0), 'data-item': i }));
      return {
        node: el('span', { class: 'field' }, label, spec.items.map((item, i) => el('label', {}, boxes[i], ` ${valueText(item)}`)),
          el('span', { class: 'muted' }, `(${spec.min}–${spec.max})`)),
        get: () => spec.items.filter((_, i) => boxes[i].checked),
      };
    }
    case 'text': {  // starts empty; an optional field left empty is left out
      const input = el('input', { type: 'text', name, maxlength: spec.max_length, 'aria-label': words(name),
                                  placeholder: spec.optional ? '(optional)' : '' });
      return { node: el('span', { class: 'field' }, label, input),
               get: () => (spec.optional && input.value === '' ? undefined : input.value) };
    }
    case 'order': {
      const order = spec.items.map((_, i) => i);
      const list = el('ol', { class: 'order' });
      const draw = () => {
        list.replaceChildren(...order.map((idx, pos) => el('li', {},
          el('button', { type: 'button', 'aria-label': 'up', disabled: pos === 0, onclick: () => { [order[pos - 1], order[pos]] = [order[pos], order[pos - 1]]; draw(); } }, '↑'),
          el('button', { type: 'button', 'aria-label': 'down', disabled: pos === order.length - 1, onclick: () => { [order[pos + 1], order[pos]] = [order[pos], order[pos + 1]]; draw(); } }, '↓'),
          ` ${valueText(spec.items[idx])}`)));
      };
      draw();
      return { node: el('span', { class: 'field' }, label, list), get: () => order.map((i) => spec.items[i]) };
    }
    default:
      return { node: el('span', { class: 'field muted' }, `${words(name)}: (unknown kind ${spec.kind})`), get: () => undefined };
  }
}

// send(type, body, row) -> Promise of the result message; the row shows a rejection where the player acted
export function controls(legal, send) {
  const box = el('div', { class: 'controls', id: 'controls' });
  legal.forEach((choice, index) => {
    const free = Object.entries(choice.free || {}).map(([name, spec]) => [name, editor(name, spec)]);
    const fixed = bodyText(choice.body);
    const why = el('span', { class: 'why', role: 'status' });
    const button = el('button', { class: 'send primary', type: 'button' }, free.length ? `${words(choice.type)} ▸` : words(choice.type));
    const row = el('div', { class: 'choice', 'data-type': choice.type, 'data-index': index },
      button, fixed ? el('span', {}, fixed) : null, free.map(([, ed]) => ed.node), why);
    button.addEventListener('click', async () => {
      const body = { ...choice.body };
      for (const [name, ed] of free) {
        const value = ed.get();
        if (value !== undefined) body[name] = value;  // (an optional field left empty is left out)
      }
      why.textContent = '';
      for (const b of box.querySelectorAll('button.send')) b.disabled = true;
      try {
        const answer = await send(choice.type, body);
        if (answer && answer.result && answer.result.status === 'rejected') {
          why.textContent = `Refused: ${answer.result.reason || answer.result.code}`;
          row.dataset.rejected = answer.result.code || 'rejected';
          for (const b of box.querySelectorAll('button.send')) b.disabled = false;
        } else if (answer && answer.pending) {
          why.textContent = 'Sent; the service has not decided yet…';
        }
      } catch (e) {
        why.textContent = `Not sent: ${e.detail || e.message}`;
        for (const b of box.querySelectorAll('button.send')) b.disabled = false;
      }
    });
    box.append(row);
  });
  return box;
}
