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

// TestHTMLReportInBrowser writes the built-in check as HTML and as JSON from the command line,
// opens the HTML from disk in headless Chromium, and holds the page to the JSON report: one
// heatmap cell per binding with its outcome and gate outline, the colours of an unmet and a
// passing cell, and a click on go-sdk's C02 D1 T2 cell opening its drill-down: the outcome, the
// record's file:line, one row per diagnostic, the diagnostic's pointer highlighted in both views
// with the numbers' exact digits, and the lane's binding basis. A link from the divergences
// opens its binding the same way. The screenshot of the drill-down is kept (report.png).
func TestHTMLReportInBrowser(t *testing.T) {
	t.Parallel()
	exe := browser(t)
	dir := t.TempDir()
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
	for i, res := range r.Each() {
		if res.Lane == "go-sdk" && res.Fixture == "C02" && res.Stage == "D1" && res.Task == "T2" {
			target = i
		}
	}
	if target < 0 || r.Results.At(target).Outcome != result.Unmet {
		t.Fatalf("the JSON report has no unmet go-sdk C02 D1 T2 binding (index %d)", target)
	}
	want := r.Results.At(target)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox, chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1600, 1000),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	type cell struct {
		I        int    `json:"i"`
		Outcome  string `json:"outcome"`
		Required bool   `json:"required"`
		Color    string `json:"color"`
	}
	if err := chromedp.Do(bctx,
		chromedp.Navigate("file://"+htmlPath),
		chromedp.WaitReady(chromedp.CSS("#cc-data")),
	); err != nil {
		t.Fatalf("load %s: %v", htmlPath, err)
	}
	cells, err := chromedp.Run(bctx, chromedp.Evaluate[[]cell](`Array.from(document.querySelectorAll('td[data-i]')).map(c => ({i: +c.dataset.i,
		outcome: c.dataset.outcome, required: c.classList.contains('req'), color: getComputedStyle(c).backgroundColor}))`))
	if err != nil {
		t.Fatalf("read the heatmap: %v", err)
	}
	if len(cells) != r.Len() {
		t.Fatalf("the heatmap has %d cells, the JSON report %d bindings", len(cells), r.Len())
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
	}
	if colors[result.Pass] == colors[result.Unmet] || colors[result.Pass] == "" {
		t.Errorf("pass and unmet cells are coloured alike: %q, %q", colors[result.Pass], colors[result.Unmet])
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
	if err := chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf("#b-%d", target))),
		chromedp.WaitVisible(chromedp.CSS("#drill")),
	); err != nil {
		t.Fatalf("click cell %d: %v", target, err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[drill](readDrill))
	if err != nil {
		t.Fatalf("drill-down of cell %d: %v", target, err)
	}
	png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(artefactDir(t), "report.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the drill-down: %s", shot)

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

	// A link in the divergences opens the binding it names.
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
}

func containsLine(lines []string, pointer, text string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, pointer+" ") && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
