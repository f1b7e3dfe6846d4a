// The drill-down of the contractcheck HTML report: a click on a heatmap cell (or a link to
// #b-<index>) shows the binding's outcome, diagnostics, records, the source and observed views
// side by side with the diagnostics' pointers highlighted, and the lane's binding rule and basis.
// Everything it shows is in the page: the data below was written by contractcheck, values
// already laid out as text, so no number is read as a float.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('cc-data').textContent);
  var drill = document.getElementById('drill');
  var body = document.getElementById('drill-body');
  var selected = null;

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }

  // pre renders a laid-out JSON value (lines of [indent, pointer, text]) as a <pre> whose lines
  // carry their pointers.
  function pre(id, lines) {
    var h = '<pre class="json" id="' + id + '">';
    lines.forEach(function (l) {
      h += '<span class="l" data-p="' + esc(l[1]) + '">' + '  '.repeat(l[0]) + esc(l[2]) + '</span>';
    });
    return h + '</pre>';
  }

  function row(k, v) { return '<dt>' + esc(k) + '</dt><dd>' + v + '</dd>'; }

  function diagTable(ds) {
    if (!ds || ds.length === 0) return '';
    var h = '<table class="list diags"><thead><tr><th>atom</th><th>kind</th><th>view pointer</th><th>expected</th><th>observed</th></tr></thead><tbody>';
    ds.forEach(function (d) {
      h += '<tr class="hl-' + esc(d.kind) + '"><td>' + esc(d.atom) + (d.block ? ' <small>(block ' + esc(d.block) + ')</small>' : '') +
        '</td><td>' + esc(d.kind) + '</td><td class="ptr">' + esc(d.pointer || '(whole view)') + '</td><td><code>' +
        (d.expected !== undefined ? esc(d.expected) : '<span class="note">absent</span>') + '</code></td><td><code>' +
        (d.observed !== undefined ? esc(d.observed) : '<span class="note">absent</span>') + '</code></td></tr>';
    });
    return h + '</tbody></table>';
  }

  // highlight marks, in one view, the lines at each diagnostic's pointer and below it.
  function highlight(pre, ds) {
    if (!pre) return;
    var lines = pre.querySelectorAll('.l');
    ds.forEach(function (d) {
      var p = d.pointer || '';
      for (var i = 0; i < lines.length; i++) {
        var lp = lines[i].getAttribute('data-p');
        if (p === '' ? false : (lp === p || lp.indexOf(p + '/') === 0)) lines[i].classList.add('hl-' + d.kind);
      }
    });
  }

  function open(i) {
    var r = data.results[i];
    if (!r) return;
    if (selected) selected.classList.remove('sel');
    selected = document.getElementById('b-' + i);
    if (selected) selected.classList.add('sel');
    var h = '<h2>' + esc(r.task) + ' · ' + esc(r.fixture) + ' · ' + esc(r.lane + ' ' + r.laneVersion + ' ' + r.configuration) +
      ' · ' + esc(r.stage) + ' <span class="badge o-' + esc(r.outcome) + '" id="drill-outcome">' + esc(r.outcome) + '</span></h2><dl>';
    h += row('fixture', esc(r.fixture + ' (suite ' + r.suite + ', family ' + r.family + ')'));
    h += row('task', esc(r.task + ' (' + r.role + '), compartment ' + r.compartment));
    h += row('origin', esc(r.origin) + ', ' + r.repetitions + ' repetition' + (r.repetitions === 1 ? '' : 's'));
    h += row('required', r.required ? esc('yes: ' + (r.requiredBy || []).join(', ')) : 'no');
    if (r.records) {
      h += row('records', r.records.map(function (x) {
        return '<code class="rec">' + esc(data.files[x[0]] + ':' + x[1]) + '</code> (repetition ' + x[2] + ')';
      }).join('<br>'));
    }
    if (r.boundaries) h += row('boundary', esc(r.boundaries.join('; ')));
    if (r.readout) h += row('readout', '<code>' + esc(r.readout) + '</code>');
    if (r.error) h += row('error', esc(r.error));
    h += '</dl>';
    if (r.diagnostics) h += '<h3>Diagnostics (' + r.diagnostics.length + ')</h3>' + diagTable(r.diagnostics);
    (r.variants || []).forEach(function (v) {
      h += '<h3>Repetitions ' + esc(v.repetitions.join(', ')) + ': ' + esc(v.outcome) + '</h3>' +
        (v.readout ? '<p>readout <code>' + esc(v.readout) + '</code></p>' : '') + diagTable(v.diagnostics);
    });
    if (data.noViews) {
      h += '<p class="note">' + esc(data.noViews) + '</p>';
    } else {
      var src = data.sources[r.fixture];
      h += '<div class="views"><div><h4>source: W0 through the canonical binding</h4>' +
        (src !== undefined ? pre('view-source', data.views[src]) : '<p class="note">no source view</p>') +
        '</div><div><h4>observed: the first record through ' + esc(r.lane) + ' ' + esc(r.stage) + ' compartment ' + esc(r.compartment) + '</h4>' +
        (r.observed >= 0 ? pre('view-observed', data.views[r.observed])
          : '<p class="note">no observed view: the binding\'s outcome is ' + esc(r.outcome) + ', nothing was captured to read</p>') + '</div></div>';
      var b = data.bindings[r.binding];
      if (b) {
        h += '<div class="binding"><h4>Binding: lane ' + esc(b.lane) + ', stage ' + esc(b.stage) + ', compartment ' + esc(b.compartment) +
          ' (' + esc(b.exposure) + (b.sharedWith ? ', shares the carrier of ' + esc(b.sharedWith) : '') + ')</h4>';
        if (b.doc) h += '<p>' + esc(b.doc) + '</p>';
        if (b.unbound) h += '<p class="note">unbound: ' + esc(b.unbound) + '</p>';
        if (b.rule >= 0) h += pre('binding-rule', data.rules[b.rule]);
        if (b.basis) {
          h += '<h4>Basis</h4><ul id="binding-basis">';
          b.basis.forEach(function (x) {
            h += '<li>' + esc(x.rule) + ' <small><code>' + esc(x.file) + '</code> ' + esc(x.function) + ' (' + esc(x.version) + ')</small></li>';
          });
          h += '</ul>';
        }
        h += '</div>';
      }
    }
    body.innerHTML = h;
    var ds = r.diagnostics || [];
    (r.variants || []).forEach(function (v) { ds = ds.concat(v.diagnostics || []); });
    highlight(document.getElementById('view-source'), ds.filter(function (d) { return d.kind !== 'added'; }));
    highlight(document.getElementById('view-observed'), ds.filter(function (d) { return d.kind !== 'missing'; }));
    drill.hidden = false;
  }

  function fromHash() {
    var m = /^#b-(\d+)$/.exec(location.hash);
    if (!m) return;
    open(+m[1]);
    var cell = document.getElementById('b-' + m[1]);
    if (cell) cell.scrollIntoView({ block: 'center', inline: 'center' });
  }

  document.addEventListener('click', function (e) {
    var cell = e.target.closest('td[data-i]');
    if (cell) {
      open(+cell.getAttribute('data-i'));
      history.replaceState(null, '', '#b-' + cell.getAttribute('data-i'));
      return;
    }
    var show = e.target.closest('[data-hl]');
    if (show) {
      document.querySelectorAll('td.hl').forEach(function (c) { c.classList.remove('hl'); });
      show.getAttribute('data-hl').split(' ').forEach(function (i) {
        var c = document.getElementById('b-' + i);
        if (c) c.classList.add('hl');
      });
    }
  });
  document.getElementById('drill-close').addEventListener('click', function () {
    drill.hidden = true;
    if (selected) selected.classList.remove('sel');
  });
  window.addEventListener('hashchange', fromHash);
  fromHash();
})();
