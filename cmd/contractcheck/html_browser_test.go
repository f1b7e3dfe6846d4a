package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractcheck/contractcheck/internal/bench"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

// browser finds a Chromium to drive: $CONTRACTCHECK_CHROMIUM, else chromium, chromium-browser or
// google-chrome on PATH. Driving a browser is the integration tier's; there a missing Chromium is
// a failure (.ci/run installs Debian's chromium), and the fast tier skips.
func browser(t *testing.T) string {
	t.Helper()
	testtier.Require(t, "a Chromium to drive")
	if p := os.Getenv("CONTRACTCHECK_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testtier.Missing(t, "no Chromium to drive: install Debian's chromium (apt-get install -y chromium) or set CONTRACTCHECK_CHROMIUM to a Chromium or Chrome binary (.ci/run installs it)")
	return ""
}

// artefactDir is where the browser test keeps its screenshot: $CONTRACTCHECK_ARTIFACTS when set
// (CI keeps it), else the test's temporary directory.
func artefactDir(t *testing.T) string {
	if d := os.Getenv("CONTRACTCHECK_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// openBrowser starts headless Chromium at a window width by 1000 px and returns its context.
func openBrowser(t *testing.T, dir string, width int) context.Context {
	t.Helper()
	exe := browser(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox, chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(width, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	// The browser starts here, so that a page's load time is the page's.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return bctx
}

// loadPage opens a page from disk and waits until its script has laid it out (body[data-ready])
// and the browser has laid out the page; it returns how long that took, and the script's own
// milliseconds parsing its data, indexing it and laying out the heatmaps (body[data-ready]).
func loadPage(t *testing.T, bctx context.Context, path string) (time.Duration, string) {
	t.Helper()
	start := time.Now()
	if err := chromedp.Do(bctx,
		chromedp.Navigate("file://"+path),
		chromedp.WaitReady(chromedp.CSS("body[data-ready]")),
	); err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	// Reading a layout figure makes the browser lay the whole page out first.
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`)); err != nil {
		t.Fatalf("lay out %s: %v", path, err)
	}
	took := time.Since(start)
	script, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.dataset.ready`))
	if err != nil {
		t.Fatal(err)
	}
	return took, script
}

// updateDocs says whether the browser test rewrites docs/report.png: go test -update, or
// CONTRACTCHECK_UPDATE_DOCS=1.
func updateDocs() bool { return *update || os.Getenv("CONTRACTCHECK_UPDATE_DOCS") == "1" }

// TestHTMLReportInBrowser writes the built-in check as HTML and as JSON from the command line,
// opens the HTML from disk in headless Chromium at 1400 px, and holds the page to the JSON
// report: the roll-up first, a row per lane · version · configuration, naming go-sdk v1.8.0's
// structured.value as first lost at D1; every heatmap within the window, its lanes folded; with
// every lane unfolded, one heatmap cell per binding with its outcome and gate outline, the colours
// of an unmet and a passing cell, and the atoms in a cell's title; the boundaries of a lane
// naming their atoms; and a click on go-sdk's C02 D1 T2 cell, its lane unfolded from the
// folded heatmap, opening its drill-down: the outcome, the record's file:line, one row per
// diagnostic, the diagnostic's pointer highlighted in both views with the numbers' exact digits,
// and the lane's binding basis. A link from the divergences opens its binding the same way. The
// screenshot of the top of the page (the roll-up) is kept as report.png, and written to
// docs/report.png under -update or CONTRACTCHECK_UPDATE_DOCS=1.
func TestHTMLReportInBrowser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bctx := openBrowser(t, dir, 1400)
	htmlPath, jsonPath := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.json")
	for _, out := range []struct{ format, path string }{{"html", htmlPath}, {"json", jsonPath}} {
		if code, _, stderr := cli(t, "check", "--no-cache", "--format", out.format, "--output", out.path); code != 0 {
			t.Fatalf("check --format %s: exit %d: %s", out.format, code, stderr)
		}
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var r result.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	target := -1
	groups := map[string]bool{}
	for i, res := range r.Each() {
		if res.Lane == "go-sdk" && res.Fixture == "C02" && res.Stage == "D1" && res.Task == "T2" && res.LaneVersion == "v1.8.0" {
			target = i
		}
		groups[res.Lane+" "+res.LaneVersion+" "+res.Configuration] = true
	}
	if target < 0 || r.Results.At(target).Outcome != result.Unmet {
		t.Fatalf("the JSON report has no unmet go-sdk v1.8.0 C02 D1 T2 binding (index %d)", target)
	}
	want := r.Results.At(target)
	loaded, script := loadPage(t, bctx, htmlPath)
	t.Logf("the built-in check's page: loaded and laid out in %v (script: parse, index, heatmaps %s ms)", loaded, script)

	// The top of the page, the roll-up, as the docs show it.
	png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artefactDir(t), "report.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the roll-up: %s", shot)
	if updateDocs() {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	type layout struct {
		First    string   `json:"first"`
		Rows     []string `json:"rows"`
		GoSDK    []string `json:"goSDK"`
		Page     int      `json:"page"`
		Window   int      `json:"window"`
		Overflow []string `json:"overflow"`
		Folded   int      `json:"folded"`
	}
	lay, err := chromedp.Run(bctx, chromedp.Evaluate[layout](`(() => {
		const rows = Array.from(document.querySelectorAll('#rollup tbody tr'));
		const sdk = rows.find(tr => tr.cells[0].firstChild.textContent === 'go-sdk' && tr.cells[1].textContent === 'v1.8.0');
		const d1 = sdk ? Array.from(sdk.querySelectorAll('.lost')).find(l => l.querySelector('.at').textContent === 'D1') : null;
		return {first: document.querySelector('main > section').id,
			rows: rows.map(tr => tr.cells[0].firstChild.textContent + ' ' + tr.cells[1].textContent + ' ' + tr.cells[2].textContent),
			goSDK: d1 ? Array.from(d1.querySelectorAll('a.atom')).map(a => a.textContent) : [],
			page: document.documentElement.scrollWidth, window: window.innerWidth,
			overflow: Array.from(document.querySelectorAll('.hm-wrap')).filter(w => w.scrollWidth > w.clientWidth).map(w => w.closest('details').id),
			folded: document.querySelectorAll('td.agg').length};
	})()`))
	if err != nil {
		t.Fatalf("read the roll-up: %v", err)
	}
	layoutChecks := []struct {
		name string
		ok   bool
	}{
		{"the roll-up comes first", lay.First == "rollup"},
		{"a roll-up row per lane, version and configuration", len(lay.Rows) == len(groups) && allIn(lay.Rows, groups)},
		{"go-sdk v1.8.0 first loses structured.value at D1", containsPrefix(lay.GoSDK, "structured.value")},
		{"the page fits the 1400 px window", lay.Page <= lay.Window},
		{"every heatmap fits the window with its lanes folded", len(lay.Overflow) == 0 && lay.Folded > 0},
	}
	for _, c := range layoutChecks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("layout: %+v", lay)
			}
		})
	}

	// Every lane unfolded: a cell per binding.
	type cell struct {
		I        int    `json:"i"`
		Outcome  string `json:"outcome"`
		Required bool   `json:"required"`
		Color    string `json:"color"`
		Title    string `json:"title"`
	}
	cells, err := chromedp.Run(bctx, chromedp.Evaluate[[]cell](`(() => {
		document.querySelectorAll('button.unfold-all').forEach(b => b.click());
		document.querySelectorAll('td[data-i]').forEach(c => c.dispatchEvent(new MouseEvent('mouseover', {bubbles: true})));
		return Array.from(document.querySelectorAll('td[data-i]')).map(c => ({i: +c.dataset.i,
			outcome: c.dataset.outcome, required: c.classList.contains('req'), color: getComputedStyle(c).backgroundColor, title: c.title}));
	})()`))
	if err != nil {
		t.Fatalf("read the heatmap: %v", err)
	}
	if len(cells) != r.Len() {
		t.Fatalf("the unfolded heatmaps have %d cells, the JSON report %d bindings", len(cells), r.Len())
	}
	colors := map[string]string{}
	for _, c := range cells {
		res := r.Results.At(c.I)
		if c.Outcome != res.Outcome || c.Required != res.Required {
			t.Errorf("cell %d (%s %s %s %s): outcome %s required %v, the JSON report says %s required %v",
				c.I, res.Task, res.Fixture, res.Lane, res.Stage, c.Outcome, c.Required, res.Outcome, res.Required)
		}
		if prev, ok := colors[c.Outcome]; ok && prev != c.Color {
			t.Errorf("cell %d: %s is coloured %s, another %s cell %s", c.I, c.Outcome, c.Color, c.Outcome, prev)
		}
		colors[c.Outcome] = c.Color
		for _, a := range report.Atoms(res.Diagnostics) {
			if !strings.Contains(c.Title, a) {
				t.Errorf("cell %d's title %q does not name its atom %q", c.I, c.Title, a)
				break
			}
		}
	}
	if colors[result.Pass] == colors[result.Unmet] || colors[result.Pass] == "" {
		t.Errorf("pass and unmet cells are coloured alike: %q, %q", colors[result.Pass], colors[result.Unmet])
	}

	// The boundaries of go-sdk v1.8.0 name the atoms lost at each.
	const sdkBoundaries = `Array.from(document.querySelectorAll('details.bnd-group')).find(d => d.querySelector('summary').textContent.startsWith('go-sdk v1.8.0 default'))`
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => { const d = `+sdkBoundaries+`; if (d) d.querySelector('summary').click(); return !!d; })()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.WaitReady(chromedp.CSS("details.bnd-group[open] .bnd-body table"))); err != nil {
		t.Fatalf("open go-sdk v1.8.0's boundaries: %v", err)
	}
	bnd, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(`+sdkBoundaries+`.querySelectorAll('tbody tr')).map(tr => Array.from(tr.cells).map(c => c.textContent).join('|'))`))
	if err != nil {
		t.Fatal(err)
	}
	if !containsPrefix(bnd, "C02|T2|W0|D1|") || !strings.Contains(strings.Join(bnd, "\n"), "structured.value") {
		t.Errorf("go-sdk v1.8.0's boundaries do not list C02 T2 W0 → D1 with its atoms: %q", bnd)
	}

	type drill struct {
		Outcome     string   `json:"outcome"`
		Record      string   `json:"record"`
		Rows        int      `json:"rows"`
		Observed    []string `json:"observed"`
		Source      []string `json:"source"`
		Basis       []string `json:"basis"`
		Heading     string   `json:"heading"`
		Hash        string   `json:"hash"`
		DrillHidden bool     `json:"drillHidden"`
	}
	const readDrill = `(() => {
		const hl = id => Array.from(document.querySelectorAll('#' + id + ' .l[class*="hl-"]')).map(l => l.dataset.p + ' ' + l.textContent.trim());
		const text = sel => { const e = document.querySelector(sel); return e ? e.textContent : ''; };
		return {outcome: text('#drill-outcome'), record: text('#drill-body code.rec'),
			rows: document.querySelectorAll('#drill-body table.diags tbody tr').length,
			observed: hl('view-observed'), source: hl('view-source'),
			basis: Array.from(document.querySelectorAll('#binding-basis li code')).map(c => c.textContent),
			heading: text('#drill-body h2'), hash: location.hash, drillHidden: document.getElementById('drill').hidden};
	})()`
	// Folded again, go-sdk's lane of T2 is unfolded by its button, and the cell clicked.
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => { document.querySelectorAll('button.fold-all').forEach(b => b.click()); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(`#task-T2 th.lane[title="go-sdk"] button.fold`)),
		chromedp.Click(chromedp.CSS(fmt.Sprintf("#b-%d", target))),
		chromedp.WaitVisible(chromedp.CSS("#drill")),
	); err != nil {
		t.Fatalf("unfold go-sdk in T2 and click cell %d: %v", target, err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[drill](readDrill))
	if err != nil {
		t.Fatalf("drill-down of cell %d: %v", target, err)
	}
	if png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot()); err == nil {
		_ = os.WriteFile(filepath.Join(artefactDir(t), "report-drill.png"), png, 0o644)
	}

	checks := []struct {
		name string
		ok   bool
	}{
		{"the drill-down shows the binding's outcome", got.Outcome == want.Outcome},
		{"the first record's file:line", got.Record == report.RecordAt(want.Records)},
		{"one row per diagnostic", got.Rows == len(want.Diagnostics)},
		{"the observed view highlights /structured/sequence with its exact digits", containsLine(got.Observed, "/structured/sequence", "9007199254740992")},
		{"the source view highlights /structured/sequence with its exact digits", containsLine(got.Source, "/structured/sequence", "9007199254740993")},
		{"the lane's binding basis", len(got.Basis) > 0},
		{"the cell's address", got.Hash == fmt.Sprintf("#b-%d", target)},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("drill-down: %+v", got)
			}
		})
	}

	// A link in the divergences opens the binding it names, its lane unfolded if need be.
	href, err := chromedp.Run(bctx, chromedp.AttributeValue(chromedp.CSS("#divergences a.cl"), "href"))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS("#drill-close")),
		chromedp.Click(chromedp.CSS("#divergences a.cl")),
		chromedp.WaitVisible(chromedp.CSS("#drill")),
	); err != nil {
		t.Fatalf("divergence link: %v", err)
	}
	linked, err := chromedp.Run(bctx, chromedp.Evaluate[drill](readDrill))
	if err != nil {
		t.Fatal(err)
	}
	var i int
	if _, err := fmt.Sscanf(href.Value, "#b-%d", &i); err != nil || linked.Hash != href.Value || i >= r.Len() {
		t.Fatalf("divergence link %q, location %q", href.Value, linked.Hash)
	}
	if res := r.Results.At(i); linked.DrillHidden || !strings.HasPrefix(linked.Heading, res.Task+" · "+res.Fixture+" · "+res.Lane) {
		t.Errorf("the link %s opened %q, want the drill-down of %s %s %s", href.Value, linked.Heading, res.Task, res.Fixture, res.Lane)
	}
	if ok, err := chromedp.Run(bctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.getElementById('b-%d')`, i))); err != nil || !ok {
		t.Errorf("the linked binding's cell b-%d is not in the heatmap (err %v)", i, err)
	}
}

// TestHTMLReportAt100k measures the page of a generated set of 100,000 bindings (the benchmark's,
// internal/bench): its size, and how long headless Chromium takes to load and lay it out. The
// figures are logged, not asserted (speed is the benchmarks'; the size is deterministic, and
// TestHTMLReportSize holds the built-in check's).
func TestHTMLReportAt100k(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bctx := openBrowser(t, dir, 1400)
	set, err := bench.Generate(filepath.Join(dir, "set"), bench.Options{Bindings: 100_000, Unique: true})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	start := time.Now()
	if code, _, stderr := cli(t, "check", "--no-cache", "--contracts", set.Contracts, "--observations", set.Observations,
		"--profile", "bench", "--format", "html", "--output", page); code != 0 {
		t.Fatalf("check: exit %d: %s", code, stderr)
	}
	written := time.Since(start)
	info, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	loaded, script := loadPage(t, bctx, page)
	t.Logf("%d bindings: check --format html took %v, the page is %.1f MB, loaded and laid out in %v (script: parse, index, heatmaps %s ms)",
		set.Bindings, written, float64(info.Size())/1e6, loaded, script)
	unfold := time.Now()
	n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`(() => {
		document.querySelector('button.unfold-all').click();
		document.documentElement.scrollHeight;
		return document.querySelectorAll('td[data-i]').length;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unfolding the first task's lanes (%d cells) took %v", n, time.Since(unfold))
}

// allIn says whether every row names a group of the set.
func allIn(rows []string, set map[string]bool) bool {
	for _, r := range rows {
		if !set[r] {
			return false
		}
	}
	return true
}

// containsPrefix says whether a string of list starts with prefix.
func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func containsLine(lines []string, pointer, text string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, pointer+" ") && strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// TestHTMLReportSize holds the built-in check's page to 2 MB (issue 29): the page embeds its data
// compactly and lays the heatmaps out in the browser. The size is deterministic, so this is the
// fast tier's; TestHTMLReportAt100k logs the page's size and load time at 100,000 bindings.
func TestHTMLReportSize(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "report.html")
	if code, _, stderr := cli(t, "check", "--format", "html", "--output", path); code != 0 {
		t.Fatalf("check --format html: exit %d: %s", code, stderr)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the built-in check's page: %d bytes", info.Size())
	const limit = 2_000_000
	if info.Size() > limit {
		t.Errorf("the built-in check's page is %d bytes, more than %d", info.Size(), limit)
	}
}
