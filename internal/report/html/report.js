// The script of the contractcheck HTML report. The page's data (#cc-data, report.htmlData) holds
// the whole report compactly: every string once in a table (s) and the rest numbers indexing it.
// From it the script lays out each task's heatmap (a lane with several versions or
// configurations folded to a column per stage until it is unfolded), the boundaries and the
// upgrades' changes when they are opened, and a binding's drill-down when its cell (or a link to
// #b-<index>) is clicked: the outcome, diagnostics, records, the source and observed views side
// by side with the diagnostics' pointers highlighted, and the lane's binding rule and basis.
// Values are already laid out as JSON text, so no number is read as a float. Every string of the
// data goes through esc before it is markup.
(function () {
  'use strict';
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('cc-data').textContent);
  var tParsed = performance.now();
  var S = D.s;
  // A result's members (report.htmlData.Results, the r* constants), and its shape's (Shapes, s*).
  var G = 0, FX = 1, STAGE = 2, OUT = 3, SHAPE = 4, READOUT = 5, DIAGS = 6, ERR = 7, OBS = 8, RECS = 9;
  var TASK = 0, ORIGIN = 1, COMP = 2, ROLE = 3, REPS = 4, REQ = 5, REQBY = 6, BIND = 7;
  function sh(r) { return D.shapes[r[SHAPE]]; }
  var MARKS = { pass: '✓', unmet: '✗', unstable: '≈', execution_failed: '!', not_reached: '…', ambiguous: '⇄', not_applicable: '–', not_observable: '◌' };
  var ORDER = ['pass', 'unmet', 'unstable', 'execution_failed', 'not_reached', 'ambiguous', 'not_observable', 'not_applicable'];
  var COLOURS = { pass: 'var(--pass)', unmet: 'var(--unmet)', unstable: 'var(--unstable)', execution_failed: 'var(--failed)',
    not_reached: 'var(--reached)', ambiguous: 'var(--ambiguous)', not_observable: '#ddd', not_applicable: 'var(--na)' };
  var drill = document.getElementById('drill');
  var body = document.getElementById('drill-body');
  var selected = null;

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  // words escapes s and lets it break after a '-', '/', '.' or '_' only, never inside a word.
  function words(s) { return esc(s).replace(/([-/._])/g, '$1<wbr>'); }
  function list(i) { return i < 0 ? [] : D.lists[i]; }

  // Indexes over the data.
  var stageRank = {};
  D.stages.forEach(function (s, i) { stageRank[s] = i; });
  var taskPos = {};
  D.tasks.forEach(function (s, i) { taskPos[s] = i; });
  var lanes = [], laneOf = [];
  D.groups.forEach(function (g, i) {
    var l = lanes[lanes.length - 1];
    if (!l || l.name !== g[0]) { l = { name: g[0], groups: [] }; lanes.push(l); }
    l.groups.push(i);
    laneOf[i] = lanes.length - 1;
  });
  var byTask = D.tasks.map(function () { return []; });
  D.results.forEach(function (r, i) { byTask[taskPos[sh(r)[TASK]]].push(i); });
  var locTo = {};
  D.loc.forEach(function (l) { if (l[6] >= 0) (locTo[l[6]] = locTo[l[6]] || []).push(l); });
  var variants = {};
  D.variants.forEach(function (v) { (variants[v[0]] = variants[v[0]] || []).push(v); });

  function groupLabel(g) { var x = D.groups[g]; return S[x[0]] + ' ' + S[x[1]] + ' ' + S[x[2]]; }
  function outcome(i) { return S[D.results[i][OUT]]; }
  var atomMemo = {};
  function atoms(diags) {
    if (atomMemo[diags]) return atomMemo[diags];
    var seen = {}, out = [];
    list(diags).forEach(function (d) {
      var a = S[D.diags[d][0]] + ' ' + S[D.diags[d][1]];
      if (!seen[a]) { seen[a] = true; out.push(a); }
    });
    atomMemo[diags] = out;
    return out;
  }
  function boundaries(i) {
    return (locTo[i] || []).map(function (l) { return S[l[5]] + ' boundary ' + S[l[3]] + ' → ' + S[l[4]]; });
  }
  function title(i) {
    var r = D.results[i];
    var t = S[sh(r)[TASK]] + ' ' + S[D.fixtures[r[FX]][0]] + ' · ' + groupLabel(r[G]) + ' · ' + S[r[STAGE]] + ': ' + S[r[OUT]];
    if (sh(r)[REQ]) t += ' (required)';
    var a = atoms(r[DIAGS]);
    if (a.length) t += '\natoms: ' + a.join(', ');
    boundaries(i).forEach(function (b) { t += '\n' + b; });
    return t;
  }
  function link(i, label) {
    if (i < 0) return esc(label);
    return '<a href="#b-' + i + '" class="cl o-' + esc(outcome(i)) + '">' + esc(label) + '</a>';
  }

  // The heatmaps. A task's model (its rows, lanes, columns and cells) is made when it is first
  // laid out; folded[t][lane] says whether a lane is folded in task t.
  var models = [], folded = [];
  function model(t) {
    if (models[t]) return models[t];
    var rows = [], rowOf = {}, cells = {}, agg = {}, stages = {};
    byTask[t].forEach(function (i) {
      var r = D.results[i], f = D.fixtures[r[FX]][0], k = f + ' ' + laneOf[r[G]] + ' ' + r[STAGE];
      if (!(f in rowOf)) { rowOf[f] = -1; rows.push(f); }
      cells[f + ' ' + r[G] + ' ' + r[STAGE]] = i;
      (agg[k] = agg[k] || []).push(i);
      (stages[r[G]] = stages[r[G]] || {})[r[STAGE]] = true;
    });
    // fixtures sorted by id: the fixture table's order is by id.
    rows.sort(function (a, b) { return S[a] < S[b] ? -1 : S[a] > S[b] ? 1 : 0; });
    var ls = [];
    lanes.forEach(function (l, li) {
      var gs = l.groups.filter(function (g) { return stages[g]; });
      if (!gs.length) return;
      var all = {};
      var cols = gs.map(function (g) {
        var st = Object.keys(stages[g]).map(Number).sort(function (a, b) { return stageRank[a] - stageRank[b]; });
        st.forEach(function (s) { all[s] = true; });
        return { g: g, stages: st };
      });
      ls.push({ lane: li, groups: cols, stages: Object.keys(all).map(Number).sort(function (a, b) { return stageRank[a] - stageRank[b]; }) });
    });
    models[t] = { rows: rows, lanes: ls, cells: cells, agg: agg };
    if (!folded[t]) {
      folded[t] = {};
      ls.forEach(function (l) { folded[t][l.lane] = l.groups.length > 1; });
    }
    return models[t];
  }

  function cellHTML(i, cls) {
    var r = D.results[i], o = S[r[OUT]];
    cls += ' o-' + o;
    if (sh(r)[REQ]) cls += ' req';
    if (locTo[i]) cls += ' bnd';
    return '<td id="b-' + i + '" class="' + esc(cls) + '" data-i="' + i + '" data-outcome="' + esc(o) + '">' + esc(MARKS[o] || '?') + '</td>';
  }

  // members are the bindings of a folded lane's cell (task t, fixture f, stage s); sorted, by
  // version.
  function members(t, f, lane, s, sorted) {
    var ms = model(t).agg[f + ' ' + lane + ' ' + s] || [];
    return sorted ? ms.slice().sort(function (a, b) { return D.results[a][G] - D.results[b][G] || a - b; }) : ms;
  }

  // aggHTML is the cell of a folded lane at a fixture and stage: its bindings' outcomes as shares
  // of the cell (aggTitle says which).
  function aggHTML(t, f, l, s, cls) {
    var ms = members(t, f, l.lane, s, false);
    if (!ms.length) return '<td class="' + cls + ' none"></td>';
    var count = {}, req = false, bnd = false;
    ms.forEach(function (i) {
      var r = D.results[i], o = S[r[OUT]];
      count[o] = (count[o] || 0) + 1;
      if (sh(r)[REQ]) req = true;
      if (locTo[i]) bnd = true;
    });
    var os = Object.keys(count).sort(function (a, b) {
      var x = ORDER.indexOf(a), y = ORDER.indexOf(b);
      return (x < 0 ? 99 : x) - (y < 0 ? 99 : y) || (a < b ? -1 : 1);
    });
    cls += ' agg' + (req ? ' req' : '') + (bnd ? ' bnd' : '');
    var style = '', mark;
    if (os.length === 1) {
      cls += ' o-' + os[0];
      mark = MARKS[os[0]] || '?';
    } else {
      cls += ' mixed';
      mark = '◐';
      var at = 0, stops = [];
      os.forEach(function (o) {
        var to = at + 100 * count[o] / ms.length;
        stops.push((COLOURS[o] || '#999') + ' ' + at.toFixed(1) + '% ' + to.toFixed(1) + '%');
        at = to;
      });
      style = ' style="background: linear-gradient(to top, ' + stops.join(', ') + ')"';
    }
    return '<td class="' + esc(cls) + '" data-t="' + t + '" data-lane="' + l.lane + '" data-f="' + f + '" data-s="' + s + '"' + style + '>' + mark + '</td>';
  }

  // aggTitle is a folded cell's title: each outcome and its atoms, with the versions that have them.
  function aggTitle(c) {
    var t = +c.getAttribute('data-t'), f = +c.getAttribute('data-f'), lane = +c.getAttribute('data-lane'), s = +c.getAttribute('data-s');
    var ms = members(t, f, lane, s, true), sig = {}, sigs = [];
    ms.forEach(function (i) {
      var r = D.results[i], a = atoms(r[DIAGS]), k = S[r[OUT]] + (a.length ? ': ' + a.join(', ') : '');
      if (!sig[k]) { sig[k] = []; sigs.push(k); }
      sig[k].push(S[D.groups[r[G]][1]] + ' ' + S[D.groups[r[G]][2]]);
    });
    var h = S[D.tasks[t]] + ' ' + S[f] + ' · ' + S[lanes[lane].name] + ' · ' + S[s] + ': ' + ms.length + ' bindings (click to unfold the lane)';
    sigs.forEach(function (k) { h += '\n' + k + ' — ' + sig[k].join(', '); });
    return h;
  }

  // A cell's title is made when the pointer first comes over it.
  document.addEventListener('mouseover', function (e) {
    var c = e.target.closest && e.target.closest('td.c');
    if (!c || c.title) return;
    if (c.hasAttribute('data-i')) c.title = title(+c.getAttribute('data-i'));
    else if (c.hasAttribute('data-lane')) c.title = aggTitle(c);
  });

  function render(t) {
    var wrap = document.querySelector('.hm-wrap[data-t="' + t + '"]');
    if (!wrap) return;
    var m = model(t), fold = folded[t];
    var h1 = '<tr><th rowspan="3" class="fx">fixture</th>', h2 = '<tr>', h3 = '<tr>';
    m.lanes.forEach(function (l) {
      var f = fold[l.lane], n = 0;
      if (f) {
        n = l.stages.length;
        h2 += '<th colspan="' + n + '" class="grp g0"><small>' + l.groups.length + ' versions · configurations</small></th>';
        l.stages.forEach(function (s, j) { h3 += '<th class="st' + (j ? '' : ' g0') + '">' + esc(S[s]) + '</th>'; });
      } else {
        l.groups.forEach(function (c, k) {
          var x = D.groups[c.g];
          n += c.stages.length;
          h2 += '<th colspan="' + c.stages.length + '" class="grp ' + (k ? 'gv' : 'g0') + '" title="' + esc(groupLabel(c.g)) + '">' +
            words(S[x[1]]) + '<small>' + words(S[x[2]]) + '</small>' +
            (x[3] ? '<em title="carriers reconstructed from the framework\'s source, not captured">(reconstructed)</em>' : '') + '</th>';
          c.stages.forEach(function (s, j) { h3 += '<th class="st' + (j ? '' : k ? ' gv' : ' g0') + '">' + esc(S[s]) + '</th>'; });
        });
      }
      var multi = l.groups.length > 1;
      h1 += '<th colspan="' + n + '" class="lane g0" title="' + esc(S[lanes[l.lane].name]) + '">' +
        (multi ? '<button type="button" class="fold" data-t="' + t + '" data-lane="' + l.lane + '" aria-expanded="' + !f + '" title="' +
          (f ? 'unfold' : 'fold') + ' the lane\'s versions and configurations">' + (f ? '▸' : '▾') + '</button>' : '') +
        words(S[lanes[l.lane].name]) + '</th>';
    });
    var h = '<table class="hm"><thead>' + h1 + '</tr>' + h2 + '</tr>' + h3 + '</tr></thead><tbody>';
    m.rows.forEach(function (f) {
      h += '<tr><th class="fx">' + esc(S[f]) + '</th>';
      m.lanes.forEach(function (l) {
        if (fold[l.lane]) {
          l.stages.forEach(function (s, j) { h += aggHTML(t, f, l, s, j ? 'c' : 'c g0'); });
          return;
        }
        l.groups.forEach(function (c, k) {
          c.stages.forEach(function (s, j) {
            var cls = 'c' + (j ? '' : k ? ' gv' : ' g0'), i = m.cells[f + ' ' + c.g + ' ' + s];
            h += i === undefined ? '<td class="' + cls + ' none"></td>' : cellHTML(i, cls);
          });
        });
      });
      h += '</tr>';
    });
    wrap.innerHTML = h + '</tbody></table>';
    if (selected) {
      var sel = document.getElementById(selected.id);
      if (sel) { sel.classList.add('sel'); selected = sel; }
    }
  }

  // cell is binding i's heatmap cell, its task opened and its lane unfolded first if need be.
  function cell(i) {
    var r = D.results[i];
    if (!r) return null;
    var t = taskPos[sh(r)[TASK]], lane = laneOf[r[G]];
    var c = document.getElementById('b-' + i);
    if (!c) {
      model(t);
      folded[t][lane] = false;
      render(t);
      c = document.getElementById('b-' + i);
    }
    if (c) {
      var d = c.closest('details');
      if (d) d.open = true;
    }
    return c;
  }

  // pre renders a view (a tree of htmlData.Views) as a <pre> whose lines carry their JSON
  // pointers, keys sorted and numbers as written.
  function pre(id, tree) {
    var lines = [];
    (function lay(n, ptr, label, indent, comma) {
      var end = comma ? ',' : '', pad = '  '.repeat(indent);
      if (typeof n === 'number') { lines.push([ptr, pad + label + S[n] + end]); return; }
      var obj = n[0] === 1, open = obj ? '{' : '[', close = obj ? '}' : ']';
      if (n.length === 1) { lines.push([ptr, pad + label + open + close + end]); return; }
      lines.push([ptr, pad + label + open]);
      if (obj) {
        for (var j = 1; j < n.length; j += 2) {
          var k = S[n[j]];
          lay(n[j + 1], ptr + '/' + k.replace(/~/g, '~0').replace(/\//g, '~1'), JSON.stringify(k) + ': ', indent + 1, j + 2 < n.length);
        }
      } else {
        for (var e = 1; e < n.length; e++) lay(n[e], ptr + '/' + (e - 1), '', indent + 1, e + 1 < n.length);
      }
      lines.push([ptr, pad + close + end]);
    })(tree, '', '', 0, false);
    return '<pre class="json" id="' + id + '">' + lines.map(function (l) {
      return '<span class="l" data-p="' + esc(l[0]) + '">' + esc(l[1]) + '</span>';
    }).join('') + '</pre>';
  }

  function row(k, v) { return '<dt>' + esc(k) + '</dt><dd>' + v + '</dd>'; }

  function diagTable(ds) {
    if (!ds.length) return '';
    var h = '<table class="list diags"><thead><tr><th>atom</th><th>kind</th><th>view pointer</th><th>expected</th><th>observed</th></tr></thead><tbody>';
    ds.forEach(function (j) {
      var d = D.diags[j], kind = S[d[1]];
      h += '<tr class="hl-' + esc(kind) + '"><td>' + esc(S[d[0]]) + (d[4] >= 0 ? ' <small>(block ' + esc(S[d[4]]) + ')</small>' : '') +
        '</td><td>' + esc(kind) + '</td><td class="ptr">' + esc(S[d[3]] || '(whole view)') + '</td><td><code>' +
        (d[5] >= 0 ? esc(S[d[5]]) : '<span class="note">absent</span>') + '</code></td><td><code>' +
        (d[6] >= 0 ? esc(S[d[6]]) : '<span class="note">absent</span>') + '</code></td></tr>';
    });
    return h + '</tbody></table>';
  }

  // highlight marks, in one view, the lines at each diagnostic's pointer and below it.
  function highlight(el, ds) {
    if (!el) return;
    var lines = el.querySelectorAll('.l');
    ds.forEach(function (j) {
      var p = S[D.diags[j][3]], kind = S[D.diags[j][1]];
      if (p === '') return;
      for (var i = 0; i < lines.length; i++) {
        var lp = lines[i].getAttribute('data-p');
        if (lp === p || lp.indexOf(p + '/') === 0) lines[i].classList.add('hl-' + kind);
      }
    });
  }

  function open(i) {
    var r = D.results[i];
    if (!r) return;
    if (selected) selected.classList.remove('sel');
    selected = cell(i);
    if (selected) selected.classList.add('sel');
    var fx = D.fixtures[r[FX]], o = S[r[OUT]], lane = S[D.groups[r[G]][0]];
    var h = '<h2>' + esc(S[sh(r)[TASK]]) + ' · ' + esc(S[fx[0]]) + ' · ' + esc(groupLabel(r[G])) + ' · ' + esc(S[r[STAGE]]) +
      ' <span class="badge o-' + esc(o) + '" id="drill-outcome">' + esc(o) + '</span></h2><dl>';
    h += row('fixture', esc(S[fx[0]] + ' (suite ' + S[fx[1]] + ', family ' + S[fx[2]] + ')'));
    h += row('task', esc(S[sh(r)[TASK]] + ' (' + S[sh(r)[ROLE]] + '), compartment ' + S[sh(r)[COMP]]));
    h += row('origin', esc(S[sh(r)[ORIGIN]]) + ', ' + sh(r)[REPS] + ' repetition' + (sh(r)[REPS] === 1 ? '' : 's'));
    h += row('required', sh(r)[REQ] ? esc('yes: ' + list(sh(r)[REQBY]).map(function (s) { return S[s]; }).join(', ')) : 'no');
    var recs = [];
    for (var k = RECS; k + 2 < r.length; k += 3) {
      recs.push('<code class="rec">' + esc(S[r[k]] + ':' + r[k + 1]) + '</code> (repetition ' + r[k + 2] + ')');
    }
    if (recs.length) h += row('records', recs.join('<br>'));
    var b = boundaries(i);
    if (b.length) h += row('boundary', esc(b.join('; ')));
    if (r[READOUT] >= 0) h += row('readout', '<code>' + esc(S[r[READOUT]]) + '</code>');
    if (r[ERR] >= 0) h += row('error', esc(S[r[ERR]]));
    h += '</dl>';
    var ds = list(r[DIAGS]);
    if (ds.length) h += '<h3>Diagnostics (' + ds.length + ')</h3>' + diagTable(ds);
    var all = ds.slice();
    (variants[i] || []).forEach(function (v) {
      h += '<h3>Repetitions ' + esc(list(v[1]).join(', ')) + ': ' + esc(S[v[2]]) + '</h3>' +
        (v[3] >= 0 ? '<p>readout <code>' + esc(S[v[3]]) + '</code></p>' : '') + diagTable(list(v[4]));
      all = all.concat(list(v[4]));
    });
    if (D.noViews) {
      h += '<p class="note">' + esc(D.noViews) + '</p>';
    } else {
      h += '<div class="views"><div><h4>source: W0 through the canonical binding</h4>' +
        (fx[3] >= 0 ? pre('view-source', D.views[fx[3]]) : '<p class="note">no source view</p>') +
        '</div><div><h4>observed: the first record through ' + esc(lane) + ' ' + esc(S[r[STAGE]]) + ' compartment ' + esc(S[sh(r)[COMP]]) + '</h4>' +
        (r[OBS] >= 0 ? pre('view-observed', D.views[r[OBS]])
          : '<p class="note">no observed view: the binding\'s outcome is ' + esc(o) + ', nothing was captured to read</p>') + '</div></div>';
      var bd = sh(r)[BIND] >= 0 ? D.bindings[sh(r)[BIND]] : null;
      if (bd) {
        h += '<div class="binding"><h4>Binding: lane ' + esc(S[bd[0]]) + ', stage ' + esc(S[bd[1]]) + ', compartment ' + esc(S[bd[2]]) +
          ' (' + esc(S[bd[3]]) + (bd[4] >= 0 ? ', shares the carrier of ' + esc(S[bd[4]]) : '') + ')</h4>';
        if (bd[5] >= 0) h += '<p>' + esc(S[bd[5]]) + '</p>';
        if (bd[7] >= 0) h += '<p class="note">unbound: ' + esc(S[bd[7]]) + '</p>';
        if (bd[6] >= 0) h += pre('binding-rule', D.views[bd[6]]);
        var basis = list(bd[8]);
        if (basis.length) {
          h += '<h4>Basis</h4><ul id="binding-basis">';
          basis.forEach(function (j) {
            var x = D.basis[j];
            h += '<li>' + esc(S[x[0]]) + ' <small><code>' + esc(S[x[1]]) + '</code> ' + esc(S[x[2]]) + ' (' + esc(S[x[3]]) + ')</small></li>';
          });
          h += '</ul>';
        }
        h += '</div>';
      }
    }
    body.innerHTML = h;
    highlight(document.getElementById('view-source'), all.filter(function (j) { return S[D.diags[j][1]] !== 'added'; }));
    highlight(document.getElementById('view-observed'), all.filter(function (j) { return S[D.diags[j][1]] !== 'missing'; }));
    drill.hidden = false;
  }

  // The boundaries of a group, with the atoms lost at each, laid out when the group is opened.
  function renderBoundaries(det) {
    var g = +det.getAttribute('data-g'), out = det.querySelector('.bnd-body');
    if (!out || out.firstChild) return;
    var h = '<table class="list"><thead><tr><th>fixture</th><th>task</th><th>from</th><th>to</th><th>kind</th><th>atoms lost</th></tr></thead><tbody>';
    D.loc.forEach(function (l) {
      if (l[0] !== g) return;
      var from = S[l[3]];
      h += '<tr><td>' + esc(S[l[1]]) + '</td><td>' + esc(S[l[2]]) + '</td><td>' + (from === 'W0' ? esc(from) : link(l[7], from)) +
        '</td><td>' + link(l[6], S[l[4]]) + '</td><td>' + esc(S[l[5]]) + '</td><td>' +
        (l[6] >= 0 ? esc(atoms(D.results[l[6]][DIAGS]).join(', ')) : '') + '</td></tr>';
    });
    out.innerHTML = h + '</tbody></table>';
  }

  // The bindings an upgrade changed, laid out when it is opened.
  function renderUpgrade(det) {
    var u = D.upgrades[+det.getAttribute('data-u')], out = det.querySelector('.up-body');
    if (!out || out.firstChild || !u) return;
    if (!u[5]) { out.innerHTML = '<p>No binding changed.</p>'; return; }
    var h = '<table class="list upgrade"><thead><tr><th>fixture</th><th>task</th><th>stage</th><th>' + esc(S[u[2]]) + ' (before)</th><th>' +
      esc(S[u[3]]) + ' (after)</th><th>atoms before</th><th>atoms after</th></tr></thead><tbody>';
    for (var j = u[4]; j < u[4] + u[5]; j++) {
      var c = D.changes[j];
      h += '<tr><td>' + esc(S[c[0]]) + '</td><td>' + esc(S[c[1]]) + '</td><td>' + esc(S[c[2]]) + '</td><td>' + link(c[5], S[c[3]]) +
        '</td><td>' + link(c[6], S[c[4]]) + '</td><td>' + (c[7] >= 0 ? esc(S[c[7]]) : '') + '</td><td>' + (c[8] >= 0 ? esc(S[c[8]]) : '') + '</td></tr>';
    }
    out.innerHTML = h + '</tbody></table>';
  }

  function fromHash() {
    var m = /^#b-(\d+)$/.exec(location.hash);
    if (m) {
      open(+m[1]);
      var c = document.getElementById('b-' + m[1]);
      if (c) c.scrollIntoView({ block: 'center', inline: 'center' });
      return;
    }
    m = /^#bnd-(\d+)$/.exec(location.hash);
    var det = m && document.getElementById('bnd-' + m[1]);
    if (det) { det.open = true; renderBoundaries(det); det.scrollIntoView(); }
  }

  document.addEventListener('click', function (e) {
    var c = e.target.closest('td[data-i]');
    if (c) {
      open(+c.getAttribute('data-i'));
      history.replaceState(null, '', '#b-' + c.getAttribute('data-i'));
      return;
    }
    var f = e.target.closest('button.fold, td.agg');
    if (f) {
      var t = +f.getAttribute('data-t');
      var lane = +f.getAttribute('data-lane');
      folded[t][lane] = !folded[t][lane];
      render(t);
      return;
    }
    var all = e.target.closest('button.unfold-all, button.fold-all');
    if (all) {
      var at = +all.getAttribute('data-t'), to = all.classList.contains('fold-all');
      model(at).lanes.forEach(function (l) { folded[at][l.lane] = to && l.groups.length > 1; });
      render(at);
      return;
    }
    var a = e.target.closest('a[href^="#b-"]');
    if (a && a.getAttribute('href') === location.hash) {
      fromHash(); // the same address again: no hashchange
      return;
    }
    var show = e.target.closest('[data-hl]');
    if (show) {
      var ids = show.getAttribute('data-hl').split(' ').filter(Boolean);
      ids.forEach(function (i) { cell(+i); });
      document.querySelectorAll('td.hl').forEach(function (x) { x.classList.remove('hl'); });
      ids.forEach(function (i) {
        var x = document.getElementById('b-' + i);
        if (x) x.classList.add('hl');
      });
    }
  });
  document.querySelectorAll('details.bnd-group').forEach(function (d) {
    d.addEventListener('toggle', function () { if (d.open) renderBoundaries(d); });
  });
  document.querySelectorAll('details.upgrade').forEach(function (d) {
    d.addEventListener('toggle', function () { if (d.open) renderUpgrade(d); });
  });
  document.getElementById('drill-close').addEventListener('click', function () {
    drill.hidden = true;
    if (selected) selected.classList.remove('sel');
  });
  var tIndexed = performance.now();
  D.tasks.forEach(function (_, t) { render(t); });
  window.addEventListener('hashchange', fromHash);
  fromHash();
  // How long the script took (parsing the data, indexing it, laying the heatmaps out), in ms: the
  // browser test logs it.
  document.body.setAttribute('data-ready', [tParsed - t0, tIndexed - tParsed, performance.now() - tIndexed].map(Math.round).join(' '));
})();
