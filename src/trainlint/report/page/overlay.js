/* trainlint HTML report: the overlay of many runs and the runs table. Loaded before page.js,
   which calls trainlintOverlay(U, runs, D) with its helpers (U) for a page of two runs or more. */
var trainlintOverlay = (function () {
  'use strict';
  var ROLES = [['loss', 'loss'], ['eval_loss', 'eval loss'], ['learning_rate', 'learning rate'], ['grad_norm', 'grad norm'],
    ['step_time', 'step time (s)'], ['throughput', 'throughput']];
  var SHOWN = { loss: 1, eval_loss: 1, learning_rate: 1, grad_norm: 1 };
  var VERDICTS = ['FAIL', 'NOT-CHECKED', 'WARN', 'PASS'];
  var ORDER = { FAIL: 0, 'NOT-CHECKED': 1, WARN: 2, PASS: 3 };
  var DASH = { FAIL: [2, 3], 'NOT-CHECKED': [9, 3, 2, 3], WARN: [7, 4], PASS: [] };
  var COLOR = { FAIL: '--fail', 'NOT-CHECKED': '--nc', WARN: '--warn', PASS: '--pass' };
  var AXES = { step: 'step', epoch: 'epoch', time: 'time (s)', tokens: 'tokens' };
  var EXACT = 4000; /* a common x grid of at most this many positions (fewer for many runs) is drawn exactly; more are binned */
  var ROWS = 200, LEGEND = 60, DASHED = 50; /* rows of the runs table and entries of the legend shown at first */

  return function build(U, runs, D) {
    var el = U.el, fmt = U.fmt, colours = {};
    function colour(name) { return colours[name] || (colours[name] = U.css(name)); } /* read once: each read restyles the page */
    /* Dashes cost a canvas much more than hairlines: past DASHED runs the verdict's second sign
       is its shape at the end of each curve. */
    var dashed = runs.length <= DASHED;
    var st = { axis: 'step', smooth: 0, log: {}, verdicts: {}, name: '', code: '', off: {}, hi: null, sort: { key: 'verdict', dir: 1 } };
    VERDICTS.forEach(function (v) { st.verdicts[v] = true; });
    var names = shortNames(runs.map(function (r) { return r.source; }));
    runs.forEach(function (r, i) { r.short = names[i]; });
    var byRid = {};
    runs.forEach(function (r) { byRid[r.id] = r; });
    var roles = ROLES.filter(function (p) { return runs.some(function (r) { return runSeries(r, p[0]); }); });
    roles.forEach(function (p) { if (!(p[0] in st.log)) st.log[p[0]] = false; });
    var shown = {};
    roles.forEach(function (p) { shown[p[0]] = !!SHOWN[p[0]]; });
    var axes = ['step'].concat(['epoch', 'time', 'tokens'].filter(function (a) { return runs.some(function (r) { return r.axes && r.axes[a]; }); }));
    var base = runs.find(function (r) { return r.kind === 'comparison' && r.panels.some(function (p) { return p.series.some(function (s) { return s.kind === 'baseline'; }); }); });
    var plots = {}, cache = {};
    var api = { state: st, plots: plots, highlight: highlight, setAxis: setAxis, setLog: setLog, setSmoothing: setSmoothing,
      ticks: function (role) { return plots[role] ? plots[role].tl.ticks.slice() : []; }, visible: visibleIds, sortBy: sortBy };

    /* ---------- data: each run's series on the chosen axis, then one grid for every run ---------- */
    function runSeries(r, role) {
      for (var i = 0; i < r.panels.length; i++) {
        if (r.panels[i].id !== role) continue;
        var s = r.panels[i].series.find(function (x) { return x.kind === 'run'; });
        if (s) return s;
      }
      return null;
    }
    function baseSeries(role) {
      if (!base) return null;
      var p = base.panels.find(function (q) { return q.id === role; });
      return p ? p.series.find(function (s) { return s.kind === 'baseline'; }) || null : null;
    }
    function axisMap(r) {
      if (st.axis === 'step') return function (x) { return x; };
      var a = r.axes && r.axes[st.axis];
      if (!a) return null;
      var xs = U.decode(a), ys = U.scaled(a, 'values');
      return function (x) { return interp(xs, ys, x); };
    }
    function xy(r, s, key) {
      var k = r.id + '|' + s.role + '|' + s.kind + '|' + key + '|' + st.axis;
      if (cache[k]) return cache[k];
      var map = axisMap(r);
      if (!map) return (cache[k] = null);
      var xs = U.decode(s).map(map);
      return (cache[k] = { xs: xs, ys: U.scaled(s, key) });
    }
    function panelTable(role) {
      var cols = [], series = [{ label: AXES[st.axis] }], bands = [], runCol = {}, b = baseSeries(role);
      if (b && axisMap(base)) {
        if (b.lo) {
          cols.push(xy(base, b, 'hi'), xy(base, b, 'lo'));
          series.push({ label: 'baseline max', stroke: 'transparent', width: 0, spanGaps: true, points: { show: false } },
            { label: 'baseline min', stroke: 'transparent', width: 0, spanGaps: true, points: { show: false } });
          bands.push({ series: [1, 2], fill: colour('--band') });
        }
        cols.push(xy(base, b, 'values'));
        series.push({ label: b.name, stroke: colour('--base'), width: 1.5, dash: [5, 4], spanGaps: true, points: { show: false } });
      }
      runs.forEach(function (r) {
        var s = runSeries(r, role), d = s && xy(r, s, 'values');
        if (!d) return;
        runCol[r.id] = cols.length + 1;
        cols.push(st.smooth > 0 ? { xs: d.xs, ys: ema(d.ys, st.smooth) } : d);
        series.push({ label: r.short, stroke: colour(COLOR[r.verdict]), dash: dashed ? DASH[r.verdict] : null, width: runs.length > 20 ? 1 : 1.5, spanGaps: true,
          points: { show: false }, show: isVisible(r), tlRid: r.id });
      });
      var data = grid(cols, st.log[role]);
      return { data: data, series: series, bands: bands, runCol: runCol };
    }
    function grid(cols, log) {
      var total = 0, lo = Infinity, hi = -Infinity;
      cols.forEach(function (c) {
        total += c.xs.length;
        for (var i = 0; i < c.xs.length; i++) { var x = c.xs[i]; if (x < lo) lo = x; if (x > hi) hi = x; }
      });
      if (!cols.length || !isFinite(lo)) return [[]];
      /* The positions drawn per series: what a canvas strokes in time for this many runs. */
      var budget = Math.max(100, Math.min(EXACT, Math.floor(40000 / cols.length))), xs = null;
      if (total <= 8 * EXACT || sameSteps(cols, budget)) {
        var all = new Float64Array(total), n = 0;
        cols.forEach(function (c) { for (var i = 0; i < c.xs.length; i++) if (isFinite(c.xs[i])) all[n++] = c.xs[i]; });
        all = all.subarray(0, n).sort(); /* a typed array sorts by value */
        xs = [];
        for (var k = 0; k < n && xs.length <= budget; k++) if (k === 0 || all[k] !== all[k - 1]) xs.push(all[k]);
        if (xs.length > budget) xs = null;
      }
      return xs ? exact(xs, cols, log) : binned(lo, hi, cols, log, budget >> 1);
    }
    function sameSteps(cols, budget) {
      var a = cols[0].xs;
      return a.length <= budget && cols.every(function (c) { return c.xs === a || c.xs.length === a.length && c.xs.every(function (x, i) { return x === a[i]; }); });
    }
    function exact(xs, cols, log) {
      var at = new Map();
      xs.forEach(function (x, i) { at.set(x, i); });
      var data = [xs];
      cols.forEach(function (c) {
        var col = new Array(xs.length).fill(null);
        for (var i = 0; i < c.xs.length; i++) { var j = at.get(c.xs[i]); if (j !== undefined) col[j] = keep(c.ys[i], log); }
        data.push(col);
      });
      return data;
    }
    /* More positions than the budget (runs logged at different steps, or long ones): each run's
       points go into equal bins of the axis, each bin keeps its lowest and highest value in the
       order they came. */
    function binned(lo, hi, cols, log, bins) {
      var w = (hi - lo) / bins || 1;
      var xs = new Array(2 * bins);
      for (var b = 0; b < bins; b++) { xs[2 * b] = lo + (b + 0.25) * w; xs[2 * b + 1] = lo + (b + 0.75) * w; }
      var data = [xs];
      cols.forEach(function (c) {
        var col = new Array(2 * bins).fill(null), mn = new Array(bins), mx = new Array(bins), mi = new Array(bins), xi = new Array(bins);
        for (var i = 0; i < c.xs.length; i++) {
          var y = keep(c.ys[i], log);
          if (y === null || !isFinite(c.xs[i])) continue;
          var k = Math.min(bins - 1, Math.floor((c.xs[i] - lo) / w));
          if (mn[k] === undefined || y < mn[k]) { mn[k] = y; mi[k] = i; }
          if (mx[k] === undefined || y > mx[k]) { mx[k] = y; xi[k] = i; }
        }
        for (var k2 = 0; k2 < bins; k2++) {
          if (mn[k2] === undefined) continue;
          var first = mi[k2] <= xi[k2];
          col[2 * k2] = first ? mn[k2] : mx[k2]; col[2 * k2 + 1] = first ? mx[k2] : mn[k2];
        }
        data.push(col);
      });
      return data;
    }
    function keep(v, log) { return v === null || v === undefined || !isFinite(v) || (log && v <= 0) ? null : v; }

    /* ---------- panels ---------- */
    var box = el('div', { cls: 'tl-ov-panels' });
    function draw(role) {
      var old = plots[role];
      if (old) { old.destroy(); }
      var t = panelTable(role), holder = box.querySelector('[data-role="' + role + '"]');
      var width = st.width || (st.width = Math.max(300, box.clientWidth || 900)); /* read once: each read lays the page out */
      var u = new uPlot({
        width: width, height: 210, series: t.series, bands: t.bands, legend: { show: false },
        focus: { alpha: 0.15 },
        cursor: { focus: { prox: 24 }, sync: { key: 'tl-overlay', setSeries: false }, drag: { x: true, y: false }, points: { show: false } },
        scales: { x: { time: false }, y: st.log[role] ? { distr: 3, log: 10 } : { distr: 1 } },
        axes: [{ label: AXES[st.axis], stroke: colour('--muted'), grid: { stroke: colour('--grid') }, ticks: { stroke: colour('--grid') }, labelSize: 20 },
          { stroke: colour('--muted'), grid: { stroke: colour('--grid') }, ticks: { stroke: colour('--grid') }, size: 64,
            splits: st.log[role] ? decades : undefined,
            values: function (uu, splits) { var v = ticks(splits, st.log[role]); if (uu.tl) uu.tl.ticks = v; return v; } }],
        hooks: {
          setCursor: [function (uu) { hover(uu); }],
          setSeries: [function (uu, i) { if (uu.tl) { uu.tl.focus = i; hover(uu); } }],
          setScale: [function (uu, key) { if (key === 'x') syncX(uu); }],
          draw: [function (uu) { if (uu.tl) marks(uu); }]
        }
      }, t.data, holder.querySelector('.tl-ov-plot'));
      u.tl = { role: role, runCol: t.runCol, ticks: u.tl ? u.tl.ticks : [], marks: [], focus: null };
      u.tl.ticks = u.axes[1]._values ? u.axes[1]._values.slice() : u.tl.ticks;
      plots[role] = u;
      u.redraw(false, true);
      if (st.hi) focusOn(u, st.hi);
      return u;
    }
    function panelBox(p) {
      var logBtn = el('button', { type: 'button', cls: 'tl-ov-log', 'aria-pressed': st.log[p[0]] ? 'true' : 'false', text: 'log scale' });
      logBtn.addEventListener('click', function () { setLog(p[0], !st.log[p[0]]); });
      return el('div', { cls: 'tl-ov-panel', 'data-role': p[0] }, [
        el('div', { cls: 'tl-panel-title' }, [p[1] + ' ', logBtn]), el('div', { cls: 'tl-ov-plot' })]);
    }
    function setLog(role, on) {
      st.log[role] = !!on;
      var b = box.querySelector('[data-role="' + role + '"] .tl-ov-log');
      if (b) b.setAttribute('aria-pressed', on ? 'true' : 'false');
      if (plots[role]) draw(role);
    }
    function redrawAll() { roles.forEach(function (p) { if (shown[p[0]]) draw(p[0]); }); }
    function setAxis(a) { st.axis = a; cache = {}; redrawAll(); note(); }
    function setSmoothing(v) { st.smooth = Math.max(0, Math.min(0.99, +v)); redrawAll(); }
    var syncing = false;
    function syncX(src) {
      if (syncing) return;
      syncing = true;
      Object.keys(plots).forEach(function (k) {
        var u = plots[k];
        if (u !== src && (u.scales.x.min !== src.scales.x.min || u.scales.x.max !== src.scales.x.max)) u.setScale('x', { min: src.scales.x.min, max: src.scales.x.max });
      });
      syncing = false;
    }

    /* ---------- each run's findings on its own curve ---------- */
    function endMark(u, r, col, fade) {
      var c = u.data[col], i = c.length - 1, ctx = u.ctx;
      while (i >= 0 && c[i] == null) i--;
      if (i < 0) return;
      ctx.fillStyle = colour(COLOR[r.verdict]);
      ctx.globalAlpha = fade * 0.8;
      ctx.fillText(U.SHAPE[r.verdict], u.valToPos(u.data[0][i], 'x', true), u.valToPos(c[i], 'y', true));
    }
    function marks(u) {
      var ctx = u.ctx, pr = devicePixelRatio || 1, out = [];
      ctx.save();
      ctx.font = Math.round(12 * pr) + 'px system-ui, sans-serif';
      ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
      runs.forEach(function (r) {
        var col = u.tl.runCol[r.id];
        if (!col || !u.series[col].show || !r.findings.length) return;
        var map = axisMap(r), fade = st.hi && st.hi !== r.id ? 0.25 : 1;
        if (!map) return;
        if (!dashed) endMark(u, r, col, fade);
        r.findings.forEach(function (f, i) {
          if (f.step === null) return;
          var x = map(f.step), sev = f.severity;
          if (!isFinite(x)) return;
          var y = nearValue(u, col, closest(u.data[0], x))[1]; /* on the curve as drawn (smoothed, binned) */
          var px = u.valToPos(x, 'x', true), py = y === null || (st.log[u.tl.role] && y <= 0) ? u.bbox.top + 8 * pr : u.valToPos(y, 'y', true);
          if (px < u.bbox.left || px > u.bbox.left + u.bbox.width) return;
          ctx.fillStyle = colour(COLOR[sev] || '--note');
          ctx.globalAlpha = fade;
          ctx.fillText(U.SHAPE[sev] || '\u25CF', px, py);
          out.push({ x: px / pr, y: py / pr, rid: r.id, i: i });
        });
      });
      ctx.restore();
      u.tl.marks = out;
    }

    /* ---------- hover: run, axis value, value (and a finding under the cursor) ---------- */
    var tip = document.getElementById('tl-tip');
    function hover(u) {
      if (!u.tl) return;
      var i = u.cursor.idx, k = u.tl.focus;
      if (i == null || k == null || k < 1 || u.cursor.left < 0) { if (tip.dataset.owner === 'ov') { tip.style.display = 'none'; tip.dataset.owner = ''; } return; }
      var sr = u.series[k], v = nearValue(u, k, i);
      var lines = [(sr.tlRid ? U.SHAPE[byRid[sr.tlRid].verdict] + ' ' : '') + sr.label, AXES[st.axis] + ' ' + fmt(u.data[0][v[0]]), u.tl.role + ' ' + fmt(v[1])];
      var cx = u.cursor.left, cy = u.cursor.top;
      u.tl.marks.forEach(function (m) {
        if (Math.abs(m.x - u.bbox.left / (devicePixelRatio || 1) - cx) < 7 && Math.abs(m.y - u.bbox.top / (devicePixelRatio || 1) - cy) < 7) {
          var f = byRid[m.rid].findings[m.i];
          lines.push(f.severity + ' ' + f.code + (f.origin_label ? ' [' + f.origin_label + ']' : '') + ' (' + byRid[m.rid].short + ', step ' + fmt(f.step) + '): ' + f.message);
        }
      });
      tip.textContent = '';
      lines.forEach(function (l, j) { tip.appendChild(j === 0 ? el('b', { text: l }) : document.createTextNode('\n' + l)); });
      tip.style.display = 'block'; tip.dataset.owner = 'ov';
      var rect = u.over.getBoundingClientRect();
      tip.style.left = Math.min(rect.left + cx + 14, window.innerWidth - tip.offsetWidth - 8) + 'px';
      tip.style.top = (rect.top + cy + 14) + 'px';
    }
    /* The value under the cursor, or the run's nearest drawn one (its points need not be at every x). */
    function nearValue(u, k, i) {
      var col = u.data[k];
      if (col[i] != null) return [i, col[i]];
      for (var d = 1; d < col.length; d++) {
        if (i - d >= 0 && col[i - d] != null) return [i - d, col[i - d]];
        if (i + d < col.length && col[i + d] != null) return [i + d, col[i + d]];
      }
      return [i, null];
    }

    /* ---------- highlighting and filtering ---------- */
    function focusOn(u, rid) {
      var col = rid ? u.tl.runCol[rid] : null;
      u.setSeries(col || null, { focus: true });
      u.tl.focus = col || null;
    }
    function highlight(rid) {
      st.hi = rid && byRid[rid] ? rid : null;
      Object.keys(plots).forEach(function (k) { focusOn(plots[k], st.hi); plots[k].redraw(false, false); });
      table.querySelectorAll('tr.tl-hi').forEach(function (tr) { tr.classList.remove('tl-hi'); });
      if (st.hi) { var tr = table.querySelector('tr[data-rid="' + st.hi + '"]'); if (tr) tr.classList.add('tl-hi'); }
      if (!st.hi && tip.dataset.owner === 'ov') tip.style.display = 'none';
    }
    function isVisible(r) {
      if (!st.verdicts[r.verdict] || st.off[r.id]) return false;
      if (st.name && r.source.toLowerCase().indexOf(st.name.toLowerCase()) < 0) return false;
      if (st.code && !r.codes.some(function (c) { return c.toLowerCase().indexOf(st.code.toLowerCase()) === 0; })) return false;
      return true;
    }
    function visibleIds() { return runs.filter(isVisible).map(function (r) { return r.id; }); }
    function applyFilter() {
      Object.keys(plots).forEach(function (k) {
        var u = plots[k];
        u.batch(function () {
          runs.forEach(function (r) { var c = u.tl.runCol[r.id]; if (c && u.series[c].show !== isVisible(r)) u.setSeries(c, { show: isVisible(r) }); });
        });
      });
      showRows();
      var listed = runs.filter(function (r) { return isVisible(r) || st.off[r.id]; });
      legend.replaceChildren.apply(legend, listed.slice(0, LEGEND).map(function (r) {
        var li = item(r);
        li.classList.toggle('tl-off', !!st.off[r.id]);
        return li;
      }));
      legendMore.textContent = listed.length > LEGEND ? 'and ' + (listed.length - LEGEND) + ' more: filter by name or rule code to list them' : '';
      chips.forEach(function (c) { c.setAttribute('aria-pressed', st.verdicts[c.dataset.verdict] ? 'true' : 'false'); });
      count.textContent = visibleIds().length + ' of ' + runs.length + ' runs shown';
    }

    /* ---------- controls, legend ---------- */
    var counts = {};
    runs.forEach(function (r) { counts[r.verdict] = (counts[r.verdict] || 0) + 1; });
    var chips = VERDICTS.filter(function (v) { return counts[v]; }).map(function (v) {
      var b = el('button', { type: 'button', cls: 'tl-chip', 'data-verdict': v, 'aria-pressed': 'true', title: 'show or hide the ' + v + ' runs' },
        [swatch(v), ' ', U.badge(v), ' ' + counts[v]]);
      b.addEventListener('click', function () { st.verdicts[v] = !st.verdicts[v]; applyFilter(); });
      return b;
    });
    var nameIn = el('input', { type: 'search', cls: 'tl-ov-name', placeholder: 'run name', 'aria-label': 'filter runs by name' });
    var codeIn = el('input', { type: 'search', cls: 'tl-ov-code', placeholder: 'rule code (TL0..)', 'aria-label': 'filter runs by rule code', size: '12' });
    nameIn.addEventListener('input', function () { st.name = nameIn.value.trim(); applyFilter(); });
    codeIn.addEventListener('input', function () { st.code = codeIn.value.trim(); applyFilter(); });
    var axisSel = el('select', { cls: 'tl-ov-axis', 'aria-label': 'x axis' }, axes.map(function (a) { return el('option', { value: a, text: AXES[a] }); }));
    axisSel.addEventListener('change', function () { setAxis(axisSel.value); });
    var smoothIn = el('input', { type: 'range', min: '0', max: '0.99', step: '0.01', value: '0', cls: 'tl-ov-smooth', 'aria-label': 'smoothing' });
    var smoothOut = el('span', { cls: 'tl-muted', text: '0' });
    smoothIn.addEventListener('input', function () { smoothOut.textContent = smoothIn.value; setSmoothing(smoothIn.value); });
    var panelPick = roles.map(function (p) {
      var cb = el('input', { type: 'checkbox', value: p[0] });
      cb.checked = shown[p[0]];
      cb.addEventListener('change', function () { shown[p[0]] = cb.checked; layout(); });
      return el('label', { cls: 'tl-ov-pick' }, [cb, ' ' + p[1]]);
    });
    var count = el('span', { cls: 'tl-muted' });
    var axisNote = el('span', { cls: 'tl-muted tl-ov-note' });
    function note() {
      var missing = runs.filter(function (r) { return !axisMap(r); }).length;
      axisNote.textContent = missing ? missing + ' run' + (missing === 1 ? ' has' : 's have') + ' no ' + st.axis + ' axis and ' + (missing === 1 ? 'is' : 'are') + ' not drawn' : '';
    }
    var itemOf = {};
    function item(r) {
      return itemOf[r.id] || (itemOf[r.id] = el('li', { 'data-rid': r.id, tabindex: '0', title: r.source }, [swatch(r.verdict), ' ', r.short]));
    }
    /* One listener per list, not per run: a page of a thousand runs. */
    function delegate(node, sel, on) {
      Object.keys(on).forEach(function (type) {
        node.addEventListener(type, function (e) {
          var t = e.target.closest ? e.target.closest(sel) : null;
          if (!t || !node.contains(t)) return;
          if (type === 'mouseover' || type === 'mouseout') { var rel = e.relatedTarget; if (rel && t.contains(rel)) return; }
          on[type](t.dataset.rid, e);
        });
      });
    }
    function swatch(v) { /* the verdict's colour, dash (page.css) and shape */
      return el('span', { cls: 'tl-' + v }, [el('span', { cls: 'tl-swatch ' + (dashed ? 'tl-' + v : 'tl-solid') }), U.SHAPE[v]]);
    }

    /* ---------- the runs table ---------- */
    var COLS = [
      ['verdict', 'verdict', function (r) { return ORDER[r.verdict]; }],
      ['name', 'run', function (r) { return r.short.toLowerCase(); }],
      ['first', 'first finding', function (r) { return r.first_code; }],
      ['final', 'final loss', function (r) { return r.stats.final_finite === false ? Infinity : r.stats.final_loss; }],
      ['best', 'best loss', function (r) { return r.stats.best_loss; }],
      ['eval', 'best eval (step)', function (r) { return r.stats.best_eval; }],
      ['steps', 'steps', function (r) { return r.stats.steps; }],
      ['format', 'format', function (r) { return r.format; }]
    ];
    var tbody = el('tbody'), rowOf = {}, order = runs.slice();
    /* A run's row, made the first time it is shown. */
    function row(r) {
      if (rowOf[r.id]) return rowOf[r.id];
      var s = r.stats || {};
      return (rowOf[r.id] = el('tr', { 'data-rid': r.id, 'data-verdict': r.verdict, tabindex: '0' }, [
        el('td', {}, U.verdict(r)),
        el('td', { title: r.source }, [swatch(r.verdict), ' ', el('a', { href: '#' + r.id, text: r.short })]),
        el('td', { cls: 'tl-first', text: r.first_finding || r.reason || '' }),
        el('td', { cls: 'num', 'data-col': 'final', text: s.final_finite === false ? 'NaN/Inf' : fmt(s.final_loss) }),
        el('td', { cls: 'num', 'data-col': 'best', text: fmt(s.best_loss) }),
        el('td', { cls: 'num', 'data-col': 'eval', text: s.best_eval == null ? '-' : fmt(s.best_eval) + ' (' + fmt(s.best_eval_step) + ')' }),
        el('td', { cls: 'num', 'data-col': 'steps', text: fmt(s.steps) }),
        el('td', { text: r.format || '' })
      ]));
    }
    var heads = COLS.map(function (c) {
      var b = el('button', { type: 'button', 'data-sort': c[0], text: c[1] });
      b.addEventListener('click', function () { sortBy(c[0], st.sort.key === c[0] ? -st.sort.dir : 1); });
      return el('th', { 'aria-sort': 'none' }, [b]);
    });
    var table = el('table', { cls: 'tl-runs' }, [el('thead', {}, [el('tr', {}, heads)]), tbody]);
    var moreRows = el('button', { type: 'button', cls: 'tl-ov-more' });
    moreRows.addEventListener('click', function () { st.allRows = true; showRows(); });
    var legendMore = el('span', { cls: 'tl-muted' });
    /* The table shows the first ROWS rows that pass the filters (in the sorted order) until
       asked for all: a page of a thousand runs lays out two hundred rows. */
    function showRows() {
      var passing = order.filter(isVisible), shown = st.allRows ? passing : passing.slice(0, ROWS);
      tbody.replaceChildren.apply(tbody, shown.map(row));
      moreRows.style.display = shown.length < passing.length ? '' : 'none';
      moreRows.textContent = 'show all ' + passing.length + ' runs';
      if (st.hi && rowOf[st.hi]) rowOf[st.hi].classList.add('tl-hi');
    }
    function sortBy(key, dir) {
      var col = COLS.find(function (c) { return c[0] === key; });
      st.sort = { key: key, dir: dir || 1 };
      var keyed = runs.map(function (r, i) { return [col[2](r), i, r]; });
      keyed.sort(function (a, b) {
        var x = a[0], y = b[0], nx = x === null || x === undefined, ny = y === null || y === undefined;
        if (nx || ny) return nx === ny ? a[1] - b[1] : nx ? 1 : -1; /* missing values last either way */
        if (x < y) return -st.sort.dir;
        if (x > y) return st.sort.dir;
        return a[1] - b[1];
      });
      order = keyed.map(function (k) { return k[2]; });
      heads.forEach(function (th, i) { th.setAttribute('aria-sort', COLS[i][0] === key ? (st.sort.dir > 0 ? 'ascending' : 'descending') : 'none'); });
      showRows();
    }

    /* ---------- the whole block ---------- */
    var legend = el('ul', { cls: 'tl-ov-legend', 'aria-label': 'runs: click to hide or show' });
    delegate(legend, 'li', {
      click: function (rid) { st.off[rid] = !st.off[rid]; applyFilter(); },
      keydown: function (rid, e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); st.off[rid] = !st.off[rid]; applyFilter(); } },
      mouseover: function (rid) { highlight(rid); }, mouseout: function () { highlight(null); }
    });
    delegate(tbody, 'tr', {
      mouseover: function (rid) { highlight(rid); }, mouseout: function () { highlight(null); },
      click: function (rid, e) { if (e.target.tagName === 'A') e.preventDefault(); U.open(rid); },
      keydown: function (rid, e) { if (e.key === 'Enter') U.open(rid); },
      focusin: function (rid) { highlight(rid); }, focusout: function () { highlight(null); }
    });
    var node = el('section', { cls: 'tl-overview' }, [
      el('div', { cls: 'tl-overlay', 'data-panel': 'overlay' }, [
        el('h2', { text: runs.length + ' runs on the same axes' }),
        el('div', { cls: 'tl-ov-bar' }, [el('label', {}, ['x axis ', axisSel]), el('label', {}, ['smoothing ', smoothIn, ' ', smoothOut]),
          el('span', { cls: 'tl-ov-picks' }, ['panels: '].concat(panelPick)), axisNote]),
        el('div', { cls: 'tl-ov-bar' }, chips.concat([nameIn, codeIn, count])),
        legend, legendMore,
        el('div', { cls: 'tl-muted tl-ov-help', text: 'colour, ' + (dashed ? 'dash' : 'the shape at each curve\u2019s end') + ' and shape say the verdict (\u25B2 FAIL, \u25A0 NOT-CHECKED, \u25C6 WARN, \u2713 PASS); each finding is marked on its run\u2019s curve; drag to zoom, double-click to see all; click a legend entry to hide its run' + (base ? '; grey: the baseline' : '') }),
        box
      ]),
      el('div', { cls: 'tl-runs-box', 'data-panel': 'runs' }, [el('h2', { text: 'runs' }), table, moreRows])
    ]);
    function layout() {
      roles.forEach(function (p) {
        var holder = box.querySelector('[data-role="' + p[0] + '"]');
        if (shown[p[0]] && !holder) {
          var next = null;
          for (var j = roles.indexOf(p) + 1; j < roles.length && !next; j++) next = box.querySelector('[data-role="' + roles[j][0] + '"]');
          box.insertBefore(panelBox(p), next);
          draw(p[0]);
        } else if (!shown[p[0]] && holder) {
          if (plots[p[0]]) { plots[p[0]].destroy(); delete plots[p[0]]; }
          holder.remove();
        }
      });
    }
    api.node = node;
    /* The view a live page keeps across its reloads (watch --output --reload): what the reader
       chose, not what the data says; anything that no longer fits the new page is ignored. */
    api.view = function () {
      return { axis: st.axis, smooth: st.smooth, log: st.log, verdicts: st.verdicts, name: st.name, code: st.code,
        off: st.off, sort: st.sort, shown: shown };
    };
    function pick(into, from, keys) {
      keys.forEach(function (k) { if (from && typeof from[k] === 'boolean') into[k] = from[k]; });
    }
    function restore(v) {
      if (!v || typeof v !== 'object') return;
      if (axes.indexOf(v.axis) >= 0) st.axis = axisSel.value = v.axis;
      if (isFinite(+v.smooth)) { st.smooth = Math.max(0, Math.min(0.99, +v.smooth)); smoothIn.value = smoothOut.textContent = String(st.smooth); }
      pick(st.log, v.log, Object.keys(st.log));
      pick(st.verdicts, v.verdicts, VERDICTS);
      pick(st.off, v.off, Object.keys(byRid));
      pick(shown, v.shown, Object.keys(shown));
      panelPick.forEach(function (lab) { var cb = lab.querySelector('input'); cb.checked = shown[cb.value]; });
      if (typeof v.name === 'string') st.name = nameIn.value = v.name;
      if (typeof v.code === 'string') st.code = codeIn.value = v.code;
      if (v.sort && COLS.some(function (c) { return c[0] === v.sort.key; })) st.sort = { key: v.sort.key, dir: v.sort.dir < 0 ? -1 : 1 };
    }
    api.start = function (view) { restore(view); sortBy(st.sort.key, st.sort.dir); layout(); note(); applyFilter(); };
    api.resize = function () {
      st.width = Math.max(300, box.clientWidth);
      Object.keys(plots).forEach(function (k) { plots[k].setSize({ width: st.width, height: plots[k].height }); });
    };
    return api;
  };

  /* A log axis' ticks: its powers of ten (a range inside one decade: its two ends). */
  function decades(u, ax, min, max) {
    var out = [];
    for (var e = Math.ceil(Math.log10(min) - 1e-9); e <= Math.floor(Math.log10(max) + 1e-9); e++) out.push(Math.pow(10, e));
    return out.length ? out : [min, max];
  }
  /* Tick labels; on a log scale the powers of ten as 1e-4 (1e3 and up, 1e-3 and down). */
  function ticks(splits, log) {
    var vals = splits.filter(function (v) { return v != null; });
    var big = Math.max.apply(null, vals.map(Math.abs).concat([0]));
    return splits.map(function (v) {
      if (v == null) return '';
      if (log) {
        var e = Math.log10(v);
        return Math.abs(e - Math.round(e)) < 1e-9 && Math.abs(e) >= 3 ? '1e' + Math.round(e) : String(+v.toPrecision(3));
      }
      if (v === 0) return '0';
      if (big < 1e-2 || big >= 1e6) return v.toExponential(1);
      return String(+v.toPrecision(4));
    });
  }
  function ema(ys, a) {
    var out = new Array(ys.length), acc = 0, w = 0;
    for (var i = 0; i < ys.length; i++) {
      var v = ys[i];
      if (v === null || !isFinite(v)) { out[i] = v; continue; }
      acc = acc * a + v * (1 - a); w = w * a + (1 - a); out[i] = acc / w;
    }
    return out;
  }
  function interp(xs, ys, x) {
    var n = xs.length;
    if (!n) return NaN;
    if (x <= xs[0]) return ys[0];
    if (x >= xs[n - 1]) return ys[n - 1];
    var lo = 0, hi = n - 1;
    while (hi - lo > 1) { var m = (lo + hi) >> 1; if (xs[m] <= x) lo = m; else hi = m; }
    var t = xs[hi] === xs[lo] ? 0 : (x - xs[lo]) / (xs[hi] - xs[lo]);
    return ys[lo] === null || ys[hi] === null ? ys[lo] : ys[lo] + t * (ys[hi] - ys[lo]);
  }
  /* The index of the position nearest x in a sorted array. */
  function closest(xs, x) {
    var lo = 0, hi = xs.length - 1;
    if (hi < 0) return 0;
    while (hi - lo > 1) { var m = (lo + hi) >> 1; if (xs[m] <= x) lo = m; else hi = m; }
    return Math.abs(xs[hi] - x) < Math.abs(xs[lo] - x) ? hi : lo;
  }
  /* Run names without the path they share: runs/a/metrics.jsonl, runs/b/metrics.jsonl -> a, b. */
  function shortNames(paths) {
    var parts = paths.map(function (p) { return p.split('/'); });
    if (parts.length < 2) return paths.slice();
    var pre = 0, post = 0;
    while (parts.every(function (q) { return q.length > pre + 1 && q[pre] === parts[0][pre]; })) pre++;
    while (parts.every(function (q) { return q.length > pre + post + 1 && q[q.length - 1 - post] === parts[0][parts[0].length - 1 - post]; })) post++;
    return parts.map(function (q) { return q.slice(pre, q.length - post).join('/') || q.join('/'); });
  }
})();
