package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// htmlRollup is the page's first table, "what does each lane lose, and where?": a row per lane
// at a version and configuration, and per stage the atoms it first loses there. It reads the
// census's localizations (the first stage where a required distinction stops being recoverable,
// and the kind of boundary) and the diagnostics of the binding each ends at; it judges nothing
// again.
type htmlRollup struct {
	// Stages are the stages any atom is first lost at, in pipeline order.
	Stages []string
	Rows   []htmlRollRow
}

// htmlRollRow is a lane at a version and configuration: its bindings' counts, how many
// boundaries it has (G is its index in htmlData.Groups, the boundaries' anchor bnd-<G>) and the
// atoms it first loses, by stage.
type htmlRollRow struct {
	G                            int
	Lane, Version, Configuration string
	Reconstructed                bool
	Bindings, Pass, Unmet, Other int
	Boundaries                   int
	// Lost lists, per stage of Stages at which the row first loses an atom, those atoms.
	Lost []htmlRollStage
}

// htmlRollStage is a stage and the atoms a row first loses there.
type htmlRollStage struct {
	Stage string
	Atoms []htmlRollAtom
}

// htmlRollAtom is an atom and kind of diagnostic ("block.annotations missing") first lost at a
// stage: for how many fixture · task pairs, which (Where, the chip's title, each with the kind
// of boundary) and a link to the first of their bindings.
type htmlRollAtom struct {
	Atom, Kind string
	N          int
	Where      string
	Link       int
}

// rollup gathers the roll-up from the localizations: for each lane at a version and
// configuration, fixture, task and atom, the earliest stage whose localization ends at a binding
// with that atom among its diagnostics.
func (p *htmlPage) rollup() htmlRollup {
	list := results(p.R)
	d := p.data
	type lossKey struct {
		g             int
		fixture, task string
		atom, kind    string
	}
	type loss struct {
		rank        int
		stage, kind string // the stage and the boundary's kind
		at          int    // the binding it ends at
	}
	first := map[lossKey]loss{}
	var order []lossKey
	rows := make([]htmlRollRow, len(d.Groups))
	for g, x := range d.Groups {
		rows[g] = htmlRollRow{G: g, Lane: d.S[x[0]], Version: d.S[x[1]], Configuration: d.S[x[2]], Reconstructed: x[3] == 1}
	}
	for i := range list {
		row := &rows[d.Results[i][rGroup]]
		row.Bindings++
		switch list[i].Outcome {
		case result.Pass:
			row.Pass++
		case result.Unmet:
			row.Unmet++
		default:
			row.Other++
		}
	}
	for _, l := range d.Loc {
		rows[l[0]].Boundaries++
		at := l[6]
		if at < 0 {
			continue
		}
		stage := d.S[l[4]]
		for _, diag := range list[at].Diagnostics {
			k := lossKey{g: l[0], fixture: d.S[l[1]], task: d.S[l[2]]}
			k.atom, k.kind = fmt.Sprint(diag["atom"]), fmt.Sprint(diag["kind"])
			prev, seen := first[k]
			if !seen {
				order = append(order, k)
			}
			if !seen || stageRank(stage) < prev.rank || (stageRank(stage) == prev.rank && stage < prev.stage) {
				first[k] = loss{rank: stageRank(stage), stage: stage, kind: d.S[l[5]], at: at}
			}
		}
	}
	type cellKey struct {
		g          int
		stage      string
		atom, kind string
	}
	type where struct {
		fixture, task, kind string
		at                  int
	}
	cells := map[cellKey][]where{}
	stages := map[string]bool{}
	for _, k := range order {
		f := first[k]
		ck := cellKey{k.g, f.stage, k.atom, k.kind}
		cells[ck] = append(cells[ck], where{k.fixture, k.task, f.kind, f.at})
		stages[f.stage] = true
	}
	out := htmlRollup{Stages: orderedStages(stages)}
	col := map[string]int{}
	for j, st := range out.Stages {
		col[st] = j
	}
	cellsOf := make([][][]htmlRollAtom, len(rows))
	for g := range rows {
		cellsOf[g] = make([][]htmlRollAtom, len(out.Stages))
	}
	keys := make([]cellKey, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		x, y := keys[a], keys[b]
		if x.g != y.g {
			return x.g < y.g
		}
		if x.atom != y.atom {
			return x.atom < y.atom
		}
		return x.kind < y.kind
	})
	for _, k := range keys {
		ws := cells[k]
		sort.Slice(ws, func(a, b int) bool {
			if ws[a].fixture != ws[b].fixture {
				return ws[a].fixture < ws[b].fixture
			}
			return ws[a].task < ws[b].task
		})
		parts := make([]string, len(ws))
		for i, w := range ws {
			parts[i] = w.fixture + " " + w.task + " (" + w.kind + ")"
		}
		j := col[k.stage]
		cellsOf[k.g][j] = append(cellsOf[k.g][j], htmlRollAtom{Atom: k.atom, Kind: k.kind, N: len(ws),
			Where: k.atom + " " + k.kind + ", first lost at " + k.stage + " by " + strings.Join(parts, ", "), Link: ws[0].at})
	}
	for g := range rows {
		for j, atoms := range cellsOf[g] {
			if len(atoms) > 0 {
				rows[g].Lost = append(rows[g].Lost, htmlRollStage{Stage: out.Stages[j], Atoms: atoms})
			}
		}
	}
	out.Rows = rows
	return out
}
