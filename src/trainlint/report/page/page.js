/* trainlint HTML report: draws the data block (#tl-data) with uPlot. No network access. */
(function () {
  'use strict';
  var T0 = performance.now(), D = JSON.parse(document.getElementById('tl-data').textContent), timing = { parse: performance.now() - T0 };
  var root = document.getElementById('tl-root');
  var SHAPE = { FAIL: '\u25B2', WARN: '\u25C6', NOTE: '\u25CF', 'NOT-CHECKED': '\u25A0', PASS: '\u2713' };
  var MARK = { best_eval: '\u2605', best_checkpoint: '\u2691' };
  var byId = {};
  var MANY = 100; /* more inputs than this: each section is built as it comes near the view */
  var api = { data: D, plots: {}, ensure: ensurePlots, zoomTo: zoomTo, resetZoom: resetZoom, timing: timing };
  window.trainlintReport = api;

  function el(tag, attrs, kids) {
    var n = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') n.textContent = attrs[k];
      else if (k === 'cls') n.className = attrs[k];
      else n.setAttribute(k, attrs[k]);
    });
    (kids || []).forEach(function (c) { if (c != null) n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return n;
  }
  function badge(v) { return el('span', { cls: 'tl-badge tl-' + v, text: (SHAPE[v] || '') + ' ' + v }); }
  /* A report's verdict, and what it rests on when not every rule could judge the input
     ("on 10 points: trend rules need 20"). */
  function verdictNodes(r) { return [badge(r.verdict), r.scope ? el('span', { cls: 'tl-scope', text: ' ' + r.scope }) : null]; }
  function fmt(v) {
    if (v === null || v === undefined) return '-';
    if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
    if (typeof v === 'number') return Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toPrecision(4) : String(+v.toPrecision(6));
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }
  var cssSeen = {};
  /* A colour of the stylesheet, read once (each read after a change restyles the whole page). */
  function css(name) { return cssSeen[name] || (cssSeen[name] = getComputedStyle(document.documentElement).getPropertyValue(name).trim()); }

  /* ---------- tooltip ---------- */
  var tip = el('div', { id: 'tl-tip', role: 'tooltip' });
  document.body.appendChild(tip);
  function showTip(node, lines, ev) {
    tip.textContent = '';
    lines.forEach(function (l, i) { tip.appendChild(i === 0 ? el('b', { text: l }) : document.createTextNode('\n' + l)); });
    tip.style.display = 'block';
    var r = node.getBoundingClientRect();
    var x = ev && ev.clientX ? ev.clientX : r.left, y = r.bottom + 6;
    tip.style.left = Math.max(4, Math.min(x, window.innerWidth - tip.offsetWidth - 8)) + 'px';
    tip.style.top = (y + tip.offsetHeight > window.innerHeight ? r.top - tip.offsetHeight - 6 : y) + 'px';
  }
  function hideTip() { tip.style.display = 'none'; }
  function withTip(node, lines) {
    node.setAttribute('tabindex', '0');
    node.setAttribute('aria-label', lines.join('; '));
    node.addEventListener('mouseenter', function (e) { showTip(node, lines, e); });
    node.addEventListener('focus', function () { showTip(node, lines); });
    node.addEventListener('mouseleave', hideTip);
    node.addEventListener('blur', hideTip);
  }
  function findingLines(f) {
    var lines = [(SHAPE[f.severity] || '') + ' ' + f.severity + ' ' + f.code + ' ' + f.name + (f.origin_label ? ' [' + f.origin_label + ']' : ''), f.message];
    if (f.step !== null) lines.push('step ' + fmt(f.step) + (f.range ? ' (range ' + fmt(f.range[0]) + '\u2013' + fmt(f.range[1]) + ')' : ''));
    Object.keys(f.evidence || {}).forEach(function (k) { lines.push(k + ': ' + fmt(f.evidence[k])); });
    return lines;
  }

  /* ---------- header and index ---------- */
  function header() {
    var h = el('header', {}, [
      el('h1', {}, ['trainlint ' + D.command + ' ', badge(D.verdict)]),
      el('div', { cls: 'tl-muted', text: 'exit code ' + D.exit_code + ' \u00b7 trainlint ' + D.tool.version +
        ' \u00b7 ' + D.reports.length + ' input' + (D.reports.length === 1 ? '' : 's') + (D.reason ? ' \u00b7 ' + D.reason : '') +
        (D.reload > 0 ? ' \u00b7 live: reloads every ' + D.reload + ' s' : '') })
    ]);
    /* a command stopped by a signal: the inputs judged by then are all the page shows */
    if (D.interrupted) h.appendChild(el('p', { cls: 'tl-interrupted', id: 'tl-interrupted', role: 'alert', text: '\u26A0 ' + D.interrupted }));
    var counts = el('div', { cls: 'tl-counts', id: 'tl-counts' });
    ['FAIL', 'NOT-CHECKED', 'WARN', 'PASS'].forEach(function (v) {
      counts.appendChild(el('span', {}, [badge(v), ' ' + D.counts[v]]));
    });
    h.appendChild(counts);
    return h;
  }
  /* Every input, or (on a page with the runs table) the inputs that are not in it. */
  function indexTable(inRuns) {
    var body = el('tbody'), listed = D.reports.filter(function (r) { return !inRuns[r.id]; });
    if (!listed.length) return null;
    listed.forEach(function (r) {
      body.appendChild(el('tr', {}, [
        el('td', {}, verdictNodes(r)),
        el('td', {}, [el('a', { href: '#' + r.id, text: r.source })]),
        el('td', { text: r.kind + (r.format ? ' \u00b7 ' + r.format : '') }),
        el('td', { cls: 'num', text: r.points == null ? '' : String(r.points) }),
        el('td', { cls: 'tl-spark', text: r.sparkline || '', title: r.sparkline ? 'loss; ! marks NaN/Inf' : '' }),
        el('td', { text: r.first_finding || r.reason || '' })
      ]));
    });
    var head = el('tr', {}, ['verdict', 'input', 'kind \u00b7 format', 'points', 'loss', 'first finding'].map(function (t) { return el('th', { text: t }); }));
    return el('table', { id: 'tl-index', cls: 'tl-index' }, [el('thead', {}, [head]), body]);
  }
  function compareTable(t) {
    if (!t || !t.rows || !t.rows.length) return null;
    var keys = Object.keys(t.columns).filter(function (k) { return t.rows.some(function (r) { return r.cells[k] && r.cells[k].run != null; }); });
    if (!keys.length) return null;
    var first = (t.rows.find(function (r) { return Object.keys(r.cells).length; }) || t.rows[0]).cells;
    var head = el('tr', {}, [el('th', { text: 'run' }), el('th', { text: 'verdict' })].concat(keys.map(function (k) { return el('th', { text: t.columns[k] }); })));
    var base = el('tr', {}, [el('td', { text: 'baseline (' + t.baseline.length + ' run' + (t.baseline.length === 1 ? '' : 's') + ')' }), el('td')].concat(
      keys.map(function (k) { var c = first[k] || {}; return el('td', { cls: 'num', text: fmt(c.baseline) + (c.baseline_range ? ' [' + fmt(c.baseline_range[0]) + '\u2013' + fmt(c.baseline_range[1]) + ']' : '') }); })));
    var rows = t.rows.map(function (r) {
      return el('tr', {}, [el('td', { text: r.source }), el('td', {}, [badge(r.verdict)])].concat(keys.map(function (k) {
        var c = r.cells[k] || {};
        return el('td', { cls: 'num', text: fmt(c.run) + (c.ratio != null ? ' (' + fmt(c.ratio) + '\u00d7)' : '') });
      })));
    });
    return el('div', {}, [el('h3', { text: 'comparison with the baseline' + (t.baseline_problem ? ' \u2014 ' + t.baseline_problem : '') }),
      el('table', { id: 'tl-compare' }, [el('thead', {}, [head]), el('tbody', {}, [base].concat(rows))])]);
  }

  /* ---------- one report ---------- */
  function section(r) {
    var s = el('section', { cls: 'tl-report', id: r.id, 'data-verdict': r.verdict }, [
      el('header', {}, verdictNodes(r).concat([el('h2', { text: r.source }), el('span', { cls: 'tl-muted', text: r.kind + (r.format ? ' \u00b7 ' + r.format : '') })]))
    ]);
    s.tlFill = function () { sectionBody(r, s); };
    return s;
  }
  /* A section's findings, panels and tables: built at once on a page of a few inputs, and on a
     page of many as the section comes near the view (or is opened, zoomed to, printed). */
  function fill(rid) {
    var s = document.getElementById(rid);
    if (s && s.tlFill) {
      var f = s.tlFill;
      s.tlFill = null; s.classList.remove('tl-shell'); f();
      if (D.reports.length > MANY && byId[rid].panels.length) ensurePlots(rid);
    }
  }
  function sectionBody(r, s) {
    if (r.reason) s.appendChild(el('p', { cls: 'tl-NOT-CHECKED', text: 'not checked: ' + r.reason }));
    if (r.findings.length) s.appendChild(findingList(r));
    if (r.panels.length) s.appendChild(el('div', { cls: 'tl-zoombar' }, [zoomButton(r), el('span', { cls: 'tl-muted', text: 'drag on a panel to zoom; double-click or reset to see all; click a finding to go to it' })]));
    if (r.panels.length) s.appendChild(el('div', { cls: 'tl-panels', id: r.id + '-panels' }));
    if (r.notes.length) s.appendChild(el('ul', { cls: 'tl-notes' }, r.notes.map(function (n) { return el('li', { text: n }); })));
    var sum = summaryBlock(r);
    if (sum) s.appendChild(sum);
    s.appendChild(checksTable(r.checks));
  }
  function zoomButton(r) {
    var b = el('button', { type: 'button', text: 'reset zoom' });
    b.addEventListener('click', function () { resetZoom(r.id); });
    return b;
  }
  function findingList(r) {
    var ol = el('ol', { cls: 'tl-findings' });
    r.findings.forEach(function (f, i) {
      var where = f.range ? 'steps ' + fmt(f.range[0]) + '\u2013' + fmt(f.range[1]) : f.step !== null ? 'step ' + fmt(f.step) : '';
      var ev = Object.keys(f.evidence || {}).map(function (k) { return k + '=' + fmt(f.evidence[k]); }).join('  ');
      var li = el('li', { cls: 'tl-finding tl-' + f.severity, 'data-finding': r.id + ':' + i, tabindex: '0', role: 'button' }, [
        badge(f.severity), ' ', el('b', { text: f.code }), ' ', el('span', { cls: 'tl-muted', text: f.name }), ' ',
        f.origin_label ? el('span', { cls: 'tl-origin', 'data-origin': f.origin, text: '[' + f.origin_label + '] ' }) : null,
        el('span', { cls: 'tl-where', text: where }), el('div', { cls: 'tl-msg', text: f.message }), el('div', { cls: 'tl-ev', text: ev })]);
      var go = function () { zoomTo(r.id, i); };
      li.addEventListener('click', go);
      li.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); } });
      ol.appendChild(li);
    });
    return ol;
  }
  function checksTable(c) {
    var rows = [];
    c.ran.forEach(function (code) { if (!(code in c.stood_down)) rows.push([code, 'ran', '']); });
    Object.keys(c.stood_down).forEach(function (code) { rows.push([code, 'stood down', c.stood_down[code]]); });
    Object.keys(c.not_checked).forEach(function (code) { rows.push([code, 'could not run', c.not_checked[code]]); });
    var counts = c.ran.length + ' ran, ' + Object.keys(c.stood_down).length + ' stood down, ' + Object.keys(c.not_checked).length + ' could not run';
    return lazyDetails(el('details', { cls: 'tl-checks-box' }, [el('summary', { text: 'checks: ' + counts })]), function () {
      return el('table', { cls: 'tl-checks' }, [el('thead', {}, [el('tr', {}, ['check', 'status', 'why'].map(function (x) { return el('th', { text: x }); }))]),
        el('tbody', {}, rows.map(function (row) { return el('tr', {}, row.map(function (x) { return el('td', { text: x }); })); }))]);
    });
  }
  /* A closed <details> gets its content when first opened (or printed): a page of a thousand
     runs does not build a thousand tables nobody opened. */
  function lazyDetails(d, fill) {
    d.tlFill = function () { if (d.tlFill) { d.tlFill = null; d.appendChild(fill()); } };
    d.addEventListener('toggle', function () { if (d.open && d.tlFill) d.tlFill(); });
    return d;
  }

  /* ---------- summaries: tables for datasets, tokenizers, checkpoints, environment ---------- */
  function summaryBlock(r) {
    var keys = Object.keys(r.summary || {}).filter(function (k) { return k !== 'roles' && k !== 'metrics' || r.kind !== 'log'; });
    if (!keys.length) return null;
    var box = el('details', { cls: 'tl-summary' }, [el('summary', { text: 'summary' })]);
    if (r.kind !== 'log' && r.kind !== 'comparison') { box.setAttribute('open', ''); box.appendChild(valueNode(r.summary, 0)); return box; }
    return lazyDetails(box, function () { return valueNode(r.summary, 0); });
  }
  function valueNode(v, depth) {
    if (Array.isArray(v)) {
      if (v.length && v.every(function (x) { return x && typeof x === 'object' && !Array.isArray(x); })) return rowsTable(v);
      if (v.length > 3 && v.every(function (x) { return typeof x === 'number'; })) return histogram(v);
      return document.createTextNode(v.map(fmt).join(', '));
    }
    if (v && typeof v === 'object' && depth < 3) {
      return el('table', { cls: 'tl-kv' }, [el('tbody', {}, Object.keys(v).map(function (k) {
        return el('tr', {}, [el('th', { text: k }), el('td', {}, [valueNode(v[k], depth + 1)])]);
      }))]);
    }
    return document.createTextNode(fmt(v));
  }
  function rowsTable(rows) {
    var cols = [];
    rows.forEach(function (r) { Object.keys(r).forEach(function (k) { if (cols.indexOf(k) < 0) cols.push(k); }); });
    var shown = rows.slice(0, 500);
    var t = el('table', {}, [el('thead', {}, [el('tr', {}, cols.map(function (c) { return el('th', { text: c }); }))]),
      el('tbody', {}, shown.map(function (r) { return el('tr', {}, cols.map(function (c) { return el('td', { cls: typeof r[c] === 'number' ? 'num' : '', text: fmt(r[c]) }); })); }))]);
    return rows.length > shown.length ? el('div', {}, [t, el('p', { cls: 'tl-muted', text: (rows.length - shown.length) + ' more rows not shown' })]) : t;
  }
  function histogram(v) {
    var w = 240, h = 40, max = Math.max.apply(null, v.map(Math.abs)) || 1, bw = w / v.length;
    var ns = 'http://www.w3.org/2000/svg', svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('width', w); svg.setAttribute('height', h); svg.setAttribute('class', 'tl-hist');
    svg.setAttribute('role', 'img'); svg.setAttribute('aria-label', v.map(fmt).join(', '));
    v.forEach(function (x, i) {
      var r = document.createElementNS(ns, 'rect'), bh = Math.abs(x) / max * h;
      r.setAttribute('x', i * bw); r.setAttribute('y', h - bh); r.setAttribute('width', Math.max(bw - 1, 1)); r.setAttribute('height', bh);
      svg.appendChild(r);
    });
    return el('span', {}, [svg, ' ' + v.length + ' values, max ' + fmt(max)]);
  }

  /* ---------- curves ---------- */
  function decode(s) {
    var xs = new Array(s.dsteps.length), acc = 0;
    for (var i = 0; i < xs.length; i++) { acc += s.dsteps[i]; xs[i] = Math.round(acc * 1e9) / 1e9; }
    return xs;
  }
  function scaled(s, key) {
    var k = '_' + key;
    if (!s[k]) { var u = Math.pow(10, s.exp || 0); s[k] = s[key].map(function (v) { return v === null ? null : v * u; }); }
    return s[k];
  }
  function smooth(vals) {
    var n = vals.length, k = Math.max(3, Math.round(n / 40)), a = 2 / (k + 1), ema = 0, w = 0, out = new Array(n);
    for (var i = 0; i < n; i++) {
      var v = vals[i];
      if (v === null) { out[i] = null; continue; }
      ema = ema * (1 - a) + v * a; w = w * (1 - a) + a; out[i] = ema / w;
    }
    return out;
  }
  function panelData(p) {
    var tables = [], series = [{ label: 'step' }], bands = [], runVals = null;
    var col = 1;
    p.series.forEach(function (s) {
      var xs = decode(s);
      if (s.kind === 'run') {
        var vals = scaled(s, 'values');
        runVals = vals;
        var cols = [xs, vals];
        series.push({ label: s.name + (p.id === 'loss' ? ' (raw)' : ''), stroke: p.id === 'loss' ? css('--raw') : css('--run'), width: p.id === 'loss' ? 1 : 1.5, spanGaps: false });
        if (p.id === 'loss') { cols.push(smooth(vals)); series.push({ label: 'smoothed', stroke: css('--run'), width: 2.2 }); }
        tables.push(cols); col += cols.length - 1;
      } else if (s.lo) {
        tables.push([xs, scaled(s, 'hi'), scaled(s, 'lo'), scaled(s, 'values')]);
        series.push({ label: 'baseline max', stroke: 'transparent', width: 0, points: { show: false }, spanGaps: true, tlEdge: true });
        series.push({ label: 'baseline min', stroke: 'transparent', width: 0, points: { show: false }, spanGaps: true, tlEdge: true });
        series.push({ label: s.name + ' median', stroke: css('--base'), width: 1.2, dash: [5, 4], spanGaps: true });
        bands.push({ series: [col, col + 1], fill: css('--band') });
        col += 3;
      } else {
        tables.push([xs, scaled(s, 'values')]);
        series.push({ label: s.name, stroke: css('--base'), width: 1.2, dash: [5, 4], spanGaps: true });
        col += 1;
      }
    });
    var bg = css('--bg');
    series.forEach(function (sr, k) {
      sr.value = function (u, v) { return v == null ? '-' : fmt(v); };
      if (k > 0 && !sr.points) sr.points = { fill: bg };
    });
    var data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    return { data: data, series: series, bands: bands, runVals: runVals };
  }
  function runExtent(r) {
    var lo = Infinity, hi = -Infinity;
    r.panels.forEach(function (p) {
      p.series.forEach(function (s) {
        if (s.kind !== 'run' || !s.dsteps.length) return;
        var xs = decode(s);
        lo = Math.min(lo, xs[0]); hi = Math.max(hi, xs[xs.length - 1]);
      });
    });
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi <= lo) hi = lo + 1;
    return [lo, hi];
  }
  function ensurePlots(rid) {
    if (api.plots[rid]) return api.plots[rid];
    fill(rid);
    if (api.plots[rid]) return api.plots[rid]; /* filling it drew them */
    var r = byId[rid], box = document.getElementById(rid + '-panels');
    if (!r || !box) return [];
    var ext = runExtent(r), plots = [];
    api.plots[rid] = plots;
    var width = Math.max(300, box.clientWidth || 900);
    r.panels.forEach(function (p, i) {
      var pd = panelData(p), div = el('div', { cls: 'tl-panel', 'data-panel': p.id });
      box.appendChild(el('div', { cls: 'tl-panel-title', text: p.title }));
      box.appendChild(div);
      var dataLo = pd.data[0][0], dataHi = pd.data[0][pd.data[0].length - 1];
      var opts = {
        width: width, height: i === 0 ? 200 : 140, series: pd.series, bands: pd.bands,
        legend: { live: true },
        cursor: { sync: { key: rid, setSeries: false }, drag: { x: true, y: false } },
        scales: { x: { time: false, range: function (u, mn, mx) { return mn === dataLo && mx === dataHi ? ext.slice() : [mn, mx]; } } },
        axes: [{ stroke: css('--muted'), grid: { stroke: css('--grid') }, ticks: { stroke: css('--grid') } },
          { stroke: css('--muted'), grid: { stroke: css('--grid') }, ticks: { stroke: css('--grid') }, size: 64, values: tickLabels }],
        hooks: { setScale: [function (u, key) { if (key === 'x') syncX(rid, u); }], draw: [function (u) { placeOverlays(u, r); }] }
      };
      var u = new uPlot(opts, pd.data, div);
      u.tl = { panel: p.id, runVals: pd.runVals, overlays: [] };
      var rowsEl = u.root.querySelectorAll('.u-legend .u-series');
      pd.series.forEach(function (sr, k) { if (sr.tlEdge && rowsEl[k]) rowsEl[k].style.display = 'none'; });
      plots.push(u);
      addOverlays(u, r, p);
    });
    plots.forEach(function (u) { u.setScale('x', { min: ext[0], max: ext[1] }); });
    return plots;
  }
  function tickLabels(u, splits) {
    var big = Math.max.apply(null, splits.map(function (v) { return Math.abs(v); }));
    return splits.map(function (v) {
      if (v === 0) return '0';
      if (big < 1e-2 || big >= 1e6) return v.toExponential(1);
      return String(+v.toPrecision(4));
    });
  }
  var syncing = false;
  function syncX(rid, src) {
    if (syncing) return;
    syncing = true;
    (api.plots[rid] || []).forEach(function (u) {
      if (u !== src && (u.scales.x.min !== src.scales.x.min || u.scales.x.max !== src.scales.x.max)) u.setScale('x', { min: src.scales.x.min, max: src.scales.x.max });
    });
    syncing = false;
  }
  function addOverlays(u, r, p) {
    var over = u.over, items = u.tl.overlays;
    function add(node, lo, hi) { over.appendChild(node); items.push({ node: node, lo: lo, hi: hi }); }
    r.findings.forEach(function (f, i) {
      if (f.step === null) return;
      if (f.range) add(el('div', { cls: 'tl-band tl-' + f.severity }), f.range[0], f.range[1]);
      add(el('div', { cls: 'tl-vline tl-' + f.severity }), f.step, null);
      var m = el('div', { cls: 'tl-mark tl-' + f.severity, 'data-finding': r.id + ':' + i, text: SHAPE[f.severity] + ' ' + f.code });
      withTip(m, findingLines(f));
      m.addEventListener('click', function () { var li = document.querySelector('li[data-finding="' + r.id + ':' + i + '"]'); if (li) li.scrollIntoView({ block: 'center' }); });
      add(m, f.step, null);
      (f.extra_steps || []).forEach(function (s) {
        if (s === f.step) return;
        var x = el('div', { cls: 'tl-mark tl-' + f.severity, text: SHAPE[f.severity] });
        withTip(x, [f.code + ' at step ' + fmt(s), f.message]);
        add(x, s, null);
      });
    });
    r.marks.forEach(function (mk) {
      var m = el('div', { cls: 'tl-mark tl-bottom tl-NOTE', 'data-mark': mk.kind, text: (MARK[mk.kind] || '\u25CF') + ' ' + mk.label.split(' ').slice(0, 2).join(' ') });
      withTip(m, [mk.label, 'step ' + fmt(mk.step)]);
      add(m, mk.step, null);
    });
    p.series.forEach(function (s) {
      if (s.kind !== 'run') return;
      s.nonfinite.forEach(function (st) {
        var m = el('div', { cls: 'tl-nonfinite', text: '!' });
        withTip(m, [s.name + ' is not finite at step ' + fmt(st)]);
        add(m, st, null);
      });
    });
    placeOverlays(u, r);
  }
  function placeOverlays(u) {
    if (!u.tl) return;
    var w = u.over.clientWidth || u.bbox.width / devicePixelRatio;
    var rows = { top: [], bottom: [] }, marks = [];
    u.tl.overlays.forEach(function (o) {
      var x0 = u.valToPos(o.lo, 'x');
      if (o.hi === null) {
        o.node.style.display = x0 < -1 || x0 > w + 1 ? 'none' : '';
        o.node.style.left = x0 + 'px';
        o.node.style.transform = x0 > w - 50 ? 'translateX(-100%)' : x0 < 30 ? 'none' : '';
        if (o.node.classList.contains('tl-mark') && o.node.style.display !== 'none') marks.push([x0, o.node]);
      } else {
        var x1 = u.valToPos(o.hi, 'x'), a = Math.max(0, x0), b = Math.min(w, x1);
        o.node.style.display = b <= a ? 'none' : '';
        o.node.style.left = a + 'px'; o.node.style.width = Math.max(2, b - a) + 'px';
      }
    });
    marks.sort(function (p, q) { return p[0] - q[0]; }).forEach(function (m) { stack(m[1], m[0], rows); });
  }
  /* Markers that would overlap go one row further from the edge, so each can be hovered. */
  function stack(node, x, rows) {
    var bottom = node.classList.contains('tl-bottom'), lane = rows[bottom ? 'bottom' : 'top'];
    var wd = (node.offsetWidth || 40) + 4, t = node.style.transform;
    var left = t === 'none' ? x : t ? x - wd : x - wd / 2, row = 0;
    while (row < lane.length && lane[row] > left) row++;
    lane[row] = left + wd;
    node.style[bottom ? 'bottom' : 'top'] = (row * 17) + 'px';
  }
  function zoomTo(rid, i) {
    var r = byId[rid], f = r && r.findings[i];
    if (!f) return;
    var li = document.querySelector('li[data-finding="' + rid + ':' + i + '"]');
    var plots = ensurePlots(rid);
    document.querySelectorAll('.tl-mark.tl-active').forEach(function (n) { n.classList.remove('tl-active'); });
    if (f.step === null || !plots.length) { if (li) li.scrollIntoView({ block: 'center' }); return; }
    var ext = runExtent(r), lo, hi;
    if (f.range) { lo = f.range[0]; hi = f.range[1]; } else { lo = hi = f.step; }
    var pad = Math.max((hi - lo) * 0.1, (ext[1] - ext[0]) * 0.03, 1e-9);
    plots[0].setScale('x', { min: Math.max(ext[0], lo - pad), max: Math.min(ext[1], hi + pad) });
    document.querySelectorAll('.tl-mark[data-finding="' + rid + ':' + i + '"]').forEach(function (n) { n.classList.add('tl-active'); });
    document.getElementById(rid + '-panels').scrollIntoView({ block: 'start' });
  }
  function resetZoom(rid) {
    var plots = ensurePlots(rid), ext = runExtent(byId[rid]);
    if (plots.length) plots[0].setScale('x', { min: ext[0], max: ext[1] });
  }

  /* ---------- page ---------- */
  function build() {
    ['--run', '--raw', '--base', '--band', '--bg', '--muted', '--grid', '--fail', '--warn', '--nc', '--pass', '--note'].forEach(css);
    root.textContent = '';
    D.reports.forEach(function (r) { byId[r.id] = r; });
    root.appendChild(header());
    var runs = D.reports.filter(function (r) { return r.panels.length && (r.kind === 'log' || r.kind === 'comparison'); });
    if (runs.length >= 2 && typeof trainlintOverlay === 'function') {
      api.overlay = trainlintOverlay(U, runs, D);
      root.appendChild(api.overlay.node);
      api.overlay.start(D.reload > 0 ? stored(viewKey) : null);
      timing.overlay = performance.now() - T0;
    }
    var inRuns = {};
    if (api.overlay) runs.forEach(function (r) { inRuns[r.id] = true; });
    var index = indexTable(inRuns);
    if (index) root.appendChild(index);
    var cmp = compareTable(D.table);
    if (cmp) root.appendChild(cmp);
    D.reports.forEach(function (r) { root.appendChild(section(r)); });
    var many = D.reports.length > MANY && 'IntersectionObserver' in window;
    if (many) {
      var near = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) { if (e.isIntersecting) { near.unobserve(e.target); fill(e.target.id); } });
      }, { rootMargin: '800px 0px' });
      D.reports.forEach(function (r) { var s = document.getElementById(r.id); s.classList.add('tl-shell'); near.observe(s); });
    } else {
      D.reports.forEach(function (r) { fill(r.id); });
    }
    timing.sections = performance.now() - T0;
    var lazy = D.reports.filter(function (r) { return r.panels.length; });
    if (many) {
      /* each section draws its panels once filled (see fill) */
    } else if ('IntersectionObserver' in window) {
      var io = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) { if (e.isIntersecting) { io.unobserve(e.target); ensurePlots(e.target.id.replace(/-panels$/, '')); } });
      }, { rootMargin: '800px 0px' });
      lazy.forEach(function (r) { io.observe(document.getElementById(r.id + '-panels')); });
    } else {
      lazy.forEach(function (r) { ensurePlots(r.id); });
    }
    window.addEventListener('beforeprint', function () {
      D.reports.forEach(function (r) { fill(r.id); });
      lazy.forEach(function (r) { ensurePlots(r.id); });
      document.querySelectorAll('.tl details').forEach(function (d) { if (d.tlFill) d.tlFill(); d.setAttribute('open', ''); });
    });
    var t;
    window.addEventListener('resize', function () {
      clearTimeout(t);
      t = setTimeout(function () {
        Object.keys(api.plots).forEach(function (rid) {
          var box = document.getElementById(rid + '-panels');
          api.plots[rid].forEach(function (u) { u.setSize({ width: Math.max(300, box.clientWidth), height: u.height }); });
        });
        if (api.overlay) api.overlay.resize();
      }, 150);
    });
    if (D.reload > 0) { /* a live page (watch --output --reload): reload, keeping the place and the view */
      var key = 'tl-scroll:' + location.pathname;
      var y = +stored(key);
      if (y) window.scrollTo(0, y);
      setTimeout(function () {
        store(key, window.scrollY);
        if (api.overlay) store(viewKey, api.overlay.view());
        location.reload();
      }, D.reload * 1000);
    }
    timing.ready = performance.now() - T0;
    api.ready = true;
  }
  /* sessionStorage, where the browser allows it (a file:// page may not): a live page keeps its
     scroll position and overlay view across reloads. */
  var viewKey = 'tl-view:' + location.pathname;
  function stored(k) {
    try { var v = sessionStorage.getItem(k); return v === null ? null : JSON.parse(v); } catch (e) { return null; }
  }
  function store(k, v) {
    try { sessionStorage.setItem(k, JSON.stringify(v)); } catch (e) { /* storage off */ }
  }
  /* What the overlay (overlay.js) borrows from this page. */
  var U = { el: el, fmt: fmt, badge: badge, verdict: verdictNodes, css: css, decode: decode, scaled: scaled, tickLabels: tickLabels, SHAPE: SHAPE, open: openRun };
  function openRun(rid) {
    var s = document.getElementById(rid);
    if (!s) return;
    ensurePlots(rid);
    s.scrollIntoView({ block: 'start' });
  }
  build();
})();
