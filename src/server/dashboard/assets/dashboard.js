/* global document, sessionStorage, fetch, URL, URLSearchParams, history, location */
// The insights dashboard: asks for a token with `insights:read`, keeps it in sessionStorage (this
// tab only), reads GET /v0/insights from this same server and draws the report. Every node is made
// with the DOM API and text goes in as textContent: nothing from the report is parsed as HTML.

const TOKEN_KEY = 'support-chat-insights-token';
const SVG = 'http://www.w3.org/2000/svg';
const SERIES = [
  { key: 'answered', label: 'Answered', color: '#1f7a4d' },
  { key: 'unanswered', label: 'Unanswered', color: '#b42318' },
  { key: 'escalated', label: 'Escalated', color: '#6941c6' },
];
const TOTALS = [
  ['conversations', 'Conversations'],
  ['questions', 'Questions'],
  ['mcp', 'Through MCP'],
  ['answered', 'Answered'],
  ['unanswered', 'Unanswered'],
  ['escalated', 'Escalated'],
  ['thumbs_up', 'Thumbs up'],
  ['thumbs_down', 'Thumbs down'],
];

const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** A link only for http(s) addresses; anything else is shown as text. */
function link(url, text) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return el('a', { href: parsed.href, rel: 'noreferrer noopener' }, text);
  } catch {
    // not a URL: text below
  }
  return document.createTextNode(text);
}

/** The path of an address, to tell apart pages with the same title. */
function pathOf(url) {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

const number = (n) => new Intl.NumberFormat('en').format(n);
const when = (iso) => new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';

function table(columns, rows) {
  const head = el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', class: c.numeric ? 'num' : '' }, c.label)));
  const body = rows.map((row) => el('tr', {}, ...row.map((cell, i) => el('td', { class: columns[i].numeric ? 'num' : '' }, cell))));
  return el('table', {}, el('thead', {}, head), el('tbody', {}, ...body));
}

/** Questions per day, stacked answered / unanswered / escalated. */
function perDayChart(days) {
  const width = 720;
  const height = 240;
  const pad = { left: 36, right: 8, top: 10, bottom: 28 };
  const max = Math.max(1, ...days.map((d) => d.answered + d.unanswered + d.escalated));
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const step = plotW / Math.max(1, days.length);
  const barW = Math.max(2, step * 0.7);
  const total = days.reduce((sum, d) => sum + d.questions, 0);
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `Questions per day, ${number(total)} in all, stacked as answered, unanswered and escalated` });
  for (const fraction of [0, 0.5, 1]) {
    const y = pad.top + plotH * (1 - fraction);
    root.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y, y2: y, stroke: '#d5dae1' }));
    root.append(svg('text', { x: pad.left - 6, y: y + 4, 'text-anchor': 'end' }, number(Math.round(max * fraction))));
  }
  const labelEvery = Math.ceil(days.length / 10);
  days.forEach((day, i) => {
    const x = pad.left + i * step + (step - barW) / 2;
    let y = pad.top + plotH;
    const group = svg('g');
    for (const series of SERIES) {
      const value = day[series.key];
      if (!value) continue;
      const h = (value / max) * plotH;
      y -= h;
      group.append(svg('rect', { x, y, width: barW, height: h, fill: series.color }, svg('title', {}, `${day.date}: ${value} ${series.label.toLowerCase()}`)));
    }
    root.append(group);
    if (i % labelEvery === 0) root.append(svg('text', { x: x + barW / 2, y: height - 10, 'text-anchor': 'middle' }, day.date.slice(5)));
  });
  return root;
}

/** The largest groups of unanswered questions as horizontal bars. */
function gapsChart(groups) {
  const shown = groups.slice(0, 8);
  const rowH = 26;
  const width = 720;
  const labelW = 260;
  const height = shown.length * rowH + 8;
  const max = Math.max(1, ...shown.map((g) => g.count));
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `The ${shown.length} largest groups of unanswered questions by number of questions` });
  shown.forEach((group, i) => {
    const y = 4 + i * rowH;
    const label = group.terms.join(' · ') || group.examples[0]?.question || '';
    const w = ((width - labelW - 48) * group.count) / max;
    root.append(svg('text', { x: labelW - 8, y: y + 16, 'text-anchor': 'end' }, label.length > 40 ? `${label.slice(0, 39)}…` : label));
    root.append(svg('rect', { x: labelW, y: y + 3, width: Math.max(2, w), height: rowH - 8, fill: '#b42318' }));
    root.append(svg('text', { x: labelW + w + 6, y: y + 16 }, number(group.count)));
  });
  return root;
}

function render(report) {
  $('period-text').textContent = `From ${when(report.since)} to ${when(report.until)}, organization ${report.organization}.`;
  $('totals').replaceChildren(...TOTALS.map(([key, label]) => el('div', {}, el('dt', {}, label), el('dd', {}, number(report.totals[key])))));

  $('per-day-chart').replaceChildren(perDayChart(report.days));
  $('per-day-legend').replaceChildren(...SERIES.map((s) => el('li', { class: s.key }, s.label)));
  $('per-day-table').replaceChildren(
    table(
      [{ label: 'Day' }, { label: 'Conversations', numeric: true }, { label: 'Questions', numeric: true }, ...SERIES.map((s) => ({ label: s.label, numeric: true }))],
      report.days.map((d) => [d.date, number(d.conversations), number(d.questions), ...SERIES.map((s) => number(d[s.key]))]),
    ),
  );

  const groups = report.unanswered_groups;
  $('gaps-chart').replaceChildren(...(groups.length ? [gapsChart(groups)] : []));
  $('gaps').replaceChildren(
    ...(groups.length
      ? groups.map((g) =>
          el(
            'li',
            {},
            el('strong', {}, `${number(g.count)} question${g.count === 1 ? '' : 's'}`),
            ` about ${g.terms.join(', ') || 'this'} (latest ${when(g.latest_at)})`,
            el(
              'ul',
              { class: 'examples' },
              // An uncertain reply showed related pages: the page that nearly answered.
              ...g.examples.map((e) =>
                el('li', {}, e.question, ...((e.related ?? []).length ? [el('span', { class: 'help' }, ' (shown: ', ...e.related.flatMap((s, i) => (i ? [', ', link(s.url, s.title)] : [link(s.url, s.title)])), ')')] : [])),
              ),
            ),
          ),
        )
      : [el('li', { class: 'empty' }, 'Every question in this period found an answer.')]),
  );

  $('thumbs-down').replaceChildren(
    ...(report.thumbs_down.length
      ? report.thumbs_down.map((t) =>
          el(
            'li',
            {},
            el('p', {}, el('strong', {}, 'Question: '), t.question || '(not kept)'),
            el('p', {}, el('strong', {}, 'Answer: '), t.answer),
            t.comment ? el('blockquote', {}, t.comment) : el('p', { class: 'empty' }, 'No comment.'),
            t.sources.length ? el('p', {}, 'Cited: ', ...t.sources.flatMap((s, i) => (i ? [', ', link(s.url, s.title)] : [link(s.url, s.title)]))) : el('p', { class: 'empty' }, 'Cited nothing.'),
            el('p', { class: 'help' }, `Rated ${when(t.rated_at)}`),
          ),
        )
      : [el('li', { class: 'empty' }, 'No answer was rated down in this period.')]),
  );

  $('top-sources').replaceChildren(
    report.top_sources.length
      ? table([{ label: 'Section' }, { label: 'Citations', numeric: true }], report.top_sources.map((s) => [link(s.url, s.title), number(s.citations)]))
      : el('p', { class: 'empty' }, 'No answer cited a source in this period.'),
  );
  const searches = report.searches;
  $('top-searches').replaceChildren(
    searches.top_searches.length
      ? table(
          [{ label: 'Query' }, { label: 'Searches', numeric: true }, { label: 'Found nothing', numeric: true }],
          searches.top_searches.map((q) => [q.query, number(q.searches), number(q.zero_results)]),
        )
      : el('p', { class: 'empty' }, 'Nobody searched in this period.'),
  );
  $('zero-searches').replaceChildren(
    searches.zero_result_searches.length
      ? table(
          [{ label: 'Query' }, { label: 'Searches', numeric: true }, { label: 'Last from' }],
          searches.zero_result_searches.map((q) => [q.query, number(q.searches), q.last_page_url ? el('span', { class: 'path' }, pathOf(q.last_page_url)) : '']),
        )
      : el('p', { class: 'empty' }, 'Every search found something.'),
  );
  const uncited = report.uncited_pages.map((p) => el('li', {}, link(p.url, p.title), ' ', el('span', { class: 'path' }, pathOf(p.url))));
  if (report.uncited_page_count > report.uncited_pages.length) uncited.push(el('li', { class: 'empty' }, `and ${number(report.uncited_page_count - report.uncited_pages.length)} more`));
  $('uncited').replaceChildren(...(uncited.length ? uncited : [el('li', { class: 'empty' }, 'Every page was cited at least once.')]));
}

async function load() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return showForm();
  $('error').textContent = '';
  $('status').textContent = 'Loading…';
  const days = Number($('period').value);
  const until = new Date();
  const since = new Date(until.getTime() - days * 86_400_000);
  const url = new URL('../v0/insights', location.href);
  url.search = new URLSearchParams({ since: since.toISOString(), until: until.toISOString() }).toString();
  let response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch {
    $('status').textContent = '';
    $('error').textContent = 'The server could not be reached.';
    return;
  }
  $('status').textContent = '';
  if (response.status === 401 || response.status === 403) {
    sessionStorage.removeItem(TOKEN_KEY);
    showForm();
    $('error').textContent = response.status === 401 ? 'That token is not valid (or expired).' : 'That token does not have the insights:read scope.';
    return;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    $('error').textContent = body?.error?.message ?? `The server answered ${response.status}.`;
    return;
  }
  render(await response.json());
  $('token-form').hidden = true;
  $('report').hidden = false;
  $('status').textContent = 'Report loaded.';
}

function showForm() {
  $('report').hidden = true;
  $('token-form').hidden = false;
}

function start() {
  // The demo links here with its token in the fragment (never sent to a server): keep it, then drop it from the address.
  const fromLink = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromLink) {
    sessionStorage.setItem(TOKEN_KEY, fromLink);
    history.replaceState(null, '', location.pathname + location.search);
  }
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('token').value.trim();
    if (!value) return;
    sessionStorage.setItem(TOKEN_KEY, value);
    $('token').value = '';
    void load();
  });
  $('refresh').addEventListener('click', () => void load());
  $('period').addEventListener('change', () => void load());
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    $('status').textContent = 'Token forgotten.';
    showForm();
    $('token').focus();
  });
  void load();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
