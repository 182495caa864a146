// The dashboard's only script. The page carries no data: it asks GET /admin/dashboard/history once (the last
// minutes order-api keeps, drawn with uPlot) and GET /admin/dashboard/snapshot once a second with the admin token,
// which it takes from the address's fragment (#token=…, never sent to the server) or the form, and keeps in this
// tab's sessionStorage. Every value is written with textContent, never as HTML.
'use strict';

const TOKEN_KEY = 'flashstock.adminToken';
const EVERY_MS = 1000;
const COLOURS = ['#1f7a3d', '#2c6fbb', '#8e44ad', '#b26b00', '#16a085', '#e84393', '#7f8c8d', '#d35400', '#c0392b'];
// the charts as order-api defines them (GET /admin/dashboard/history), each with its uPlot and its columns
let charts = [];
let everyMs = EVERY_MS;
let capacity = 0;
let orderLabels = {};

function takeTokenFromFragment() {
  const match = location.hash.match(/(?:^#|&)token=([^&]*)/);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search); // out of the address bar and history
  }
}

function el(id) {
  return document.getElementById(id);
}

function number(value, digits = 0) {
  return value === null || value === undefined ? '—'
    : value.toLocaleString('en-US', {maximumFractionDigits: digits, minimumFractionDigits: digits});
}

function set(id, text, bad = false) {
  const cell = el(id);
  cell.textContent = text;
  cell.classList.toggle('bad', bad);
}

function cell(row, text, bad = false) {
  const td = row.insertCell();
  td.textContent = text;
  if (bad) {
    td.classList.add('bad');
  }
  return td;
}

function refill(tableId, rows, fill) {
  const body = el(tableId).tBodies[0];
  body.replaceChildren();
  rows.forEach(item => fill(body.insertRow(), item));
}

function showStatus(text, refused) {
  const status = el('status');
  status.textContent = text;
  status.classList.toggle('refused', refused);
  el('token-form').hidden = !refused;
}

function showEngine(engine) {
  el('interval').textContent = 'over the last ' + number(engine.seconds, 1) + ' s';
  el('latency-window').textContent = 'over the last ' + number(engine.latencySeconds, 0) + ' s';
  refill('orders', Object.entries(engine.orders), (row, [group, rate]) => {
    cell(row, orderLabels[group] || group);
    cell(row, number(rate.perSecond, 1), group === 'failed' && rate.perSecond > 0).id = 'orders-' + group + '-rate';
    cell(row, number(rate.total)).id = 'orders-' + group + '-total';
  });
  for (const [prefix, p] of [['latency', engine.latency], ['e2e', engine.endToEnd]]) {
    for (const q of ['p50', 'p95', 'p99']) {
      set(prefix + '-' + q, p ? number(p[q], 1) : '—');
    }
  }
  for (const [prefix, stage] of [['relay', engine.relay], ['consumer', engine.consumer]]) {
    set(prefix + '-rate', number(stage.perSecond, 1));
    set(prefix + '-batch', number(stage.batchSize, 1));
    set(prefix + '-batches', number(stage.batchesPerSecond, 1));
  }
  refill('processes', engine.processes, (row, p) => {
    cell(row, p.name);
    cell(row, number(p.cpuCores, 2));
    cell(row, p.memoryBytes === null ? '—' : number(p.memoryBytes / 1048576, 0));
    cell(row, p.problem || '', Boolean(p.problem));
  });
}

function sizeOf(bytes) {
  return bytes < 1048576 ? number(bytes / 1024, 0) + ' KiB' : number(bytes / 1048576, 1) + ' MiB';
}

// One uPlot per chart: a time axis (local time), the chart's unit on the y axis, a legend of its series.
function makeCharts(history) {
  everyMs = history.everyMillis;
  capacity = history.capacity;
  el('history-size').textContent = 'history: ' + number(capacity * everyMs / 60000, 0) + ' min at '
    + number(everyMs / 1000, 0) + ' s, ' + sizeOf(history.bytes);
  const box = el('charts');
  box.replaceChildren();
  let column = 0;
  charts = history.charts.map(chart => {
    const card = document.createElement('div');
    card.className = 'chart';
    card.dataset.title = chart.title;
    const title = document.createElement('h2');
    title.textContent = chart.title;
    card.append(title);
    box.append(card);
    const data = [Array.from(history.at, t => t / 1000)];
    chart.series.forEach(() => data.push(history.values[column++].slice()));
    const plot = new uPlot({
      width: Math.max(300, card.clientWidth - 12),
      height: 180,
      scales: {x: {time: true}, y: {range: (u, min, max) => [0, Math.max(max, 1) * 1.05]}},
      axes: [{}, {label: chart.unit, size: 60, labelSize: 18}],
      series: [{label: 'time'}].concat(chart.series.map((s, i) => ({
        label: s.label, stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: false,
        value: (u, v) => v === null || v === undefined ? '—' : number(v, v < 10 ? 2 : 1)
      }))),
      legend: {live: false}
    }, data, card);
    const entry = {chart, card, plot, data};
    count(entry);
    return entry;
  });
  const orders = history.charts[0].series;
  orderLabels = Object.fromEntries(orders.map(s => [s.key.replace(/^orders\./, ''), s.label]));
  new ResizeObserver(() => charts.forEach(c => c.plot.setSize({width: Math.max(300, c.card.clientWidth - 12),
    height: 180}))).observe(box);
}

// Per series, how many points hold a value and how many a value above zero: the browser test reads it here.
function count(entry) {
  entry.card.dataset.points = JSON.stringify(Object.fromEntries(entry.chart.series.map((s, i) => {
    const values = entry.data[i + 1].filter(v => v !== null && v !== undefined);
    return [s.key, [values.length, values.filter(v => v > 0).length]];
  })));
}

// Appends the snapshot's point; after a gap (a tab in the background is polled less often) reloads the history.
async function appendPoint(point, headers) {
  const data0 = charts.length ? charts[0].data[0] : [];
  const last = data0.length ? data0[data0.length - 1] * 1000 : 0;
  if (point.at <= last) {
    return;
  }
  if (!charts.length || (last && point.at - last > 3 * everyMs)) {
    await loadHistory(headers);
    return;
  }
  let column = 0;
  for (const entry of charts) {
    entry.data[0].push(point.at / 1000);
    entry.chart.series.forEach((s, i) => entry.data[i + 1].push(point.values[column++]));
    if (entry.data[0].length > capacity) {
      entry.data.forEach(values => values.shift());
    }
    entry.plot.setData(entry.data);
    count(entry);
  }
}

async function loadHistory(headers) {
  const response = await fetch('/admin/dashboard/history', {headers, cache: 'no-store'});
  if (response.ok) {
    charts.forEach(c => c.plot.destroy());
    makeCharts(await response.json());
  }
}

function showReconciliation(r) {
  const verdict = el('verdict');
  verdict.textContent = r.verdict;
  verdict.className = 'verdict verdict-' + r.verdict;
  el('reconciled').textContent = r.generatedAt
    ? 'reconciled ' + new Date(r.generatedAt).toLocaleTimeString() + ' in ' + r.tookMillis + ' ms' : '';
  const problem = el('reconciliation-problem');
  problem.hidden = !r.problem;
  problem.textContent = r.problem || '';
  el('kafka-topic').textContent = r.kafka ? r.kafka.topic + ' / ' + r.kafka.group : '';
  refill('kafka', r.kafka ? r.kafka.partitions : [], (row, p) => {
    cell(row, p.partition);
    cell(row, number(p.endOffset));
    cell(row, number(p.committedOffset));
    cell(row, number(p.lag));
  });
  set('dead-letters', r.kafka ? number(r.kafka.deadLetters) : '—', Boolean(r.kafka && r.kafka.deadLetters > 0));
  refill('items', r.items, (row, item) => {
    row.dataset.item = item.itemCode;
    row.classList.toggle('trouble', item.trouble.length > 0);
    row.classList.toggle('in-flight', item.trouble.length === 0 && item.inFlight.length > 0);
    cell(row, item.itemCode);
    cell(row, item.gate);
    cell(row, number(item.baseline));
    cell(row, number(item.remaining)).classList.add('remaining');
    cell(row, number(item.orders)).classList.add('orders');
    cell(row, number(item.unitsOrdered));
    cell(row, number(item.unsent));
    cell(row, number(item.sent));
    cell(row, number(item.dead), item.dead > 0).classList.add('dead');
    cell(row, number(item.stockQuantity)).classList.add('stock');
    cell(row, number(item.anomalies), item.anomalies > 0).classList.add('anomalies');
    // a counter below the orders while they flow is orders on their way (in flight), not drift
    const drifted = item.drift !== 0 && !item.inFlight.some(name => name.endsWith('-gate-matches-orders')
      || name === 'redis-matches-orders');
    cell(row, number(item.drift), drifted).classList.add('drift');
    cell(row, number(item.partitionLag));
    const check = cell(row, item.trouble.length ? item.trouble.join('; ')
      : item.inFlight.length ? 'in flight: ' + item.inFlight.join(', ') : 'exact', item.trouble.length > 0);
    check.classList.add('check');
  });
  const more = el('items-not-shown');
  more.hidden = r.itemsNotShown === 0;
  more.textContent = r.itemsNotShown + ' more items hold every invariant or are in flight (not shown)';
}

async function refresh() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  try {
    const headers = token ? {'Authorization': 'Bearer ' + token, 'Accept': 'application/json'}
      : {'Accept': 'application/json'};
    const response = await fetch('/admin/dashboard/snapshot', {headers, cache: 'no-store'});
    if (response.status === 401 || response.status === 403) {
      const problem = await response.json().catch(() => ({}));
      showStatus('refused: ' + response.status + ' ' + (problem.code || '') + ' ' + (problem.detail || ''), true);
      return; // no polling until a token is entered
    }
    if (!response.ok) {
      showStatus('snapshot answered ' + response.status, false);
    } else {
      const snapshot = await response.json();
      showStatus('live ' + new Date(snapshot.generatedAt).toLocaleTimeString(), false);
      await appendPoint(snapshot.point, headers);
      showEngine(snapshot.engine);
      showReconciliation(snapshot.reconciliation);
    }
  } catch (e) {
    showStatus('order-api did not answer: ' + e.message, false);
  }
  setTimeout(refresh, EVERY_MS);
}

el('token-form').addEventListener('submit', event => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, el('token').value);
  el('token').value = '';
  refresh();
});
takeTokenFromFragment();
refresh();
