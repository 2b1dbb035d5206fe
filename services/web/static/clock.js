// Turn clocks (#29) for people: a time control in words ("30 s per move", "5 min + 5 s"), the clock events in
// words, and the table's clock panel: every seat's clock counting down live from the last view record (as
// api.js remainingMs counts: from the server's time in the record, never this browser's wall clock), the bank
// left, the timeouts so far, and a warning for the reader's own seat when it must act and little time is left.
import { remainingMs } from './api.js';
import { el, ordinal, sentenceStart } from './dom.js';

// 30 -> "30 s", 300 -> "5 min", 90 -> "1 min 30 s", 2.5 -> "2.5 s", 3600 -> "1 h"
export function secondsText(seconds) {
  const s = Math.round(Number(seconds) * 10) / 10;
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = Math.round((s % 60) * 10) / 10;
  return [h ? `${h} h` : '', m ? `${m} min` : '', rest ? `${rest} s` : ''].filter(Boolean).join(' ');
}

// A time control, short: "30 s per move", "5 min + 5 s", "10 min in all", "no clock"
export function controlText(control) {
  if (!control || control.kind === 'none') return 'no clock';
  if (control.kind === 'move') return `${secondsText(control.seconds)} per move`;
  return control.increment ? `${secondsText(control.seconds)} + ${secondsText(control.increment)}` : `${secondsText(control.seconds)} in all`;
}

// A time control, with what running out means
export function controlRules(control) {
  if (!control || control.kind === 'none') return 'no clock';
  if (control.kind === 'move') {
    return `${secondsText(control.seconds)} per move; when it runs out the service's bot moves in the seat's place, `
      + `and ${control.timeouts} timeouts in a row forfeit`;
  }
  return `each seat has ${secondsText(control.seconds)} in all${control.increment ? `, plus ${secondsText(control.increment)} for each move it makes` : ''}; `
    + 'a seat whose time runs out forfeits';
}

// What is left, as a countdown shows it: 3_723_000 -> "1:02:03", 65_000 -> "1:05", 42_000 -> "42 s", 7_300 -> "7.3 s"
export function countdownText(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms >= 60_000) {
    const s = Math.ceil(ms / 1000);
    const mm = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, '0');
    return s >= 3600 ? `${Math.floor(s / 3600)}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
  }
  if (ms >= 10_000) return `${Math.ceil(ms / 1000)} s`;
  return `${(Math.ceil(ms / 100) / 10).toFixed(1)} s`;
}

// When the reader's own seat is warned: the last 10 s, or the last quarter of a shorter allowance (at least 2 s)
export const warnMs = (control) => Math.min(10_000, Math.max(2_000, Number(control.seconds) * 250));

export function forfeitReason(reason, control) {
  if (reason === 'bank') return 'ran out of time: the bank was empty';
  return control && control.timeouts ? `ran out of time: ${control.timeouts} timeouts in a row` : 'ran out of time';
}

// "Time ran out for alice (seat 0): the service's bot played in that seat's place (2 in a row; the 3rd forfeits)."
export function timedOutText(body, name, control) {
  const who = name(body.seat);
  const rule = control && control.timeouts ? `; the ${ordinal(control.timeouts)} forfeits` : '';
  return `Time ran out for ${who}: the service's bot played in ${who === 'you' ? 'your' : 'that seat\'s'} place `
    + `(${body.in_row} in a row${rule}).`;
}

export function forfeitedText(body, name, control) {
  return `${sentenceStart(name(body.seat))} forfeited (${forfeitReason(body.reason, control)}). The match is over.`;
}

// A clock event in words; '' for one not worth a line (MoveTimed: after every move); null for any other event.
// name(seat): how the reader calls a seat ("you", "alice (seat 0)", "seat 1").
export function clockEventText(event, name, control) {
  const body = event.body || {};
  switch (event.type) {
    case 'ClockSet': return `The clock is set: ${controlRules(body.control)}.`;
    case 'ClockStarted': return 'Every seat is taken: the clock starts.';
    case 'MoveTimed': return '';
    case 'TimedOut': return timedOutText(body, name, control);
    case 'Forfeited': return forfeitedText(body, name, control);
    default: return null;
  }
}

// The table's clock panel (hidden for a match without a clock) and the warning for the reader's own seat (shown
// under the table's status line). update(record) with each view record; news(text, seat) for what the service
// did about a seat's time (kept until that seat moves by itself again; version: the event's); stop() when the page is left.
export function clockPanel({ reader, name }) {
  const heading = el('span', { id: 'time-control' });
  const list = el('ul', { class: 'clock-seats', id: 'clock-seats' });
  const said = el('p', { class: 'clock-news', id: 'clock-news', role: 'status' });
  const node = el('div', { class: 'panel clocks', id: 'clocks', hidden: true }, el('h2', {}, 'Clock: ', heading), list, said);
  const warning = el('p', { class: 'clock-warning', id: 'clock-warning', role: 'alert', hidden: true });
  let record = null;
  let timer = null;
  let newsSeat = null;

  function seatLine(c) {
    return el('li', { class: 'clock-seat', 'data-seat': c.seat },
      el('span', { class: 'who' }, name(c.seat)), ' ',
      el('strong', { class: 'left', role: 'timer' }), ' ',
      el('span', { class: 'timeouts muted' }));
  }

  function tick() {
    if (!record || !record.clock) return;
    const { control, started } = record.clock;
    const running = [];
    for (const c of record.clock.seats) {
      const li = list.querySelector(`li[data-seat="${c.seat}"]`);
      if (!li) continue;
      const left = remainingMs(record, c.seat);
      const on = started && !record.finished && !c.forfeited && c.deadline_ms !== null && c.deadline_ms !== undefined;
      if (on) running.push(c.seat);
      const low = on && left <= warnMs(control);
      li.classList.toggle('running', on);
      li.classList.toggle('low', low);
      li.classList.toggle('out', on && left === 0);
      li.classList.toggle('forfeited', !!c.forfeited);
      li.dataset.leftMs = left === null ? '' : String(Math.round(left));
      const shown = c.forfeited ? 'forfeited' : on ? countdownText(left)
        : control.kind === 'bank' ? `${countdownText(c.remaining_ms)} left` : started ? 'waiting' : 'not started';
      const timerText = li.querySelector('.left');
      if (timerText.textContent !== shown) timerText.textContent = shown;
      const rowText = control.kind === 'move' && c.in_row && !c.forfeited ? `, ${c.in_row} in a row (the ${ordinal(control.timeouts)} forfeits)` : '';
      const counts = `${c.timeouts} timeout${c.timeouts === 1 ? '' : 's'}${rowText}`;
      const countsNode = li.querySelector('.timeouts');
      if (countsNode.textContent !== counts) countsNode.textContent = counts;
      li.dataset.timeouts = c.timeouts;
      li.dataset.inRow = c.in_row;
      if (c.seat === reader) warn(c, on, left, control);
    }
    if (!running.length) { clearInterval(timer); timer = null; }
  }

  function warn(c, on, left, control) {
    const show = on && left <= warnMs(control);
    warning.hidden = !show;
    if (!show) { warning.replaceChildren(); return; }
    const last = control.kind === 'move' && c.in_row + 1 >= control.timeouts;
    const then = control.kind === 'bank' ? 'act or you forfeit (your time is running out)'
      : last ? `act or you forfeit (it would be your ${ordinal(control.timeouts)} timeout in a row)`
        : 'act or the service\'s bot moves for you';
    const text = countdownText(left);
    if (warning.dataset.then !== then || !warning.firstChild) {
      warning.dataset.then = then;
      warning.replaceChildren(el('strong', { role: 'timer' }, text), ` left — ${then}.`);
    } else if (warning.firstChild.textContent !== text) warning.firstChild.textContent = text;
  }

  function update(next) {
    record = next;
    const clock = next && next.clock;
    node.hidden = !clock;
    if (!clock) { warning.hidden = true; return; }
    heading.textContent = controlText(clock.control);
    heading.title = controlRules(clock.control);
    list.replaceChildren(...clock.seats.map(seatLine));
    if (newsSeat !== null && clock.seats.some((c) => c.seat === newsSeat && c.in_row === 0 && !c.forfeited)) news('', null);
    tick();
    if (!timer && clock.started && !next.finished) timer = setInterval(tick, 100);
  }

  function news(text, seat, version = null) {
    const c = record && record.clock && version !== null && version <= record.version
      && record.clock.seats.find((x) => x.seat === seat);
    if (c && c.in_row === 0 && !c.forfeited) return;  // (an old event: the seat has moved by itself since)
    newsSeat = text ? seat : null;
    said.textContent = text;
  }

  return { node, warning, update, news, redraw: () => update(record), stop: () => { clearInterval(timer); timer = null; } };
}
