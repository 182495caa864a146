// The dashboard's only script. The page carries no data: it asks GET /admin/dashboard/snapshot once a second
// with the admin token, which it takes from the address's fragment (#token=…, never sent to the server) or the
// form, and keeps in this tab's sessionStorage. Every value is written with textContent, never as HTML.
'use strict';

const TOKEN_KEY = 'flashstock.adminToken';
const EVERY_MS = 1000;
const HISTORY = 120;
const SERIES = [['accepted', '#1f7a3d'], ['sold_out', '#2c6fbb'], ['refused', '#b26b00'], ['failed', '#c0392b']];
const rates = [];

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
  for (const [group, rate] of Object.entries(engine.orders)) {
    set('orders-' + group + '-rate', number(rate.perSecond, 1), group === 'failed' && rate.perSecond > 0);
    set('orders-' + group + '-total', number(rate.total));
  }
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
  rates.push(Object.fromEntries(SERIES.map(([group]) => [group, engine.orders[group].perSecond || 0])));
  rates.splice(0, rates.length - HISTORY);
  drawChart();
}

function drawChart() {
  const canvas = el('rate-chart');
  const g = canvas.getContext('2d');
  const top = Math.max(1, ...rates.flatMap(point => Object.values(point)));
  g.clearRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = '#6b7480';
  g.fillText(number(top) + '/s', 2, 10);
  for (const [group, colour] of SERIES) {
    g.strokeStyle = colour;
    g.beginPath();
    rates.forEach((point, i) => {
      const x = canvas.width * i / (HISTORY - 1);
      const y = canvas.height - 2 - (canvas.height - 14) * point[group] / top;
      i === 0 ? g.moveTo(x, y) : g.lineTo(x, y);
    });
    g.stroke();
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
    const response = await fetch('/admin/dashboard/snapshot', {
      headers: token ? {'Authorization': 'Bearer ' + token, 'Accept': 'application/json'} : {'Accept': 'application/json'},
      cache: 'no-store'
    });
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
