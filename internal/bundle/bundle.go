// Package bundle writes the contract set as a standard OPA bundle (contractcheck bundle), so that
// a stock OPA, with no custom build, evaluates the same decisions as contractcheck check where
// results flow: a sidecar beside an agent service, a central decision service (docs/opa.md).
//
// The bundle holds the task policies of the selected layers, their calls to the checker's custom
// builtins (contractcheck.diff, contractcheck.json_text) rewritten to pure-Rego equivalents; the
// projector as Rego over the contract model's data (rego/project.rego); the evaluated contract
// model, every catalogued source's canonical view and the provider request schemas the model names
// as data (data.contractcheck.contracts); a
// dispatch from task ids to policy packages generated from the model; and one entry point,
// data.contractcheck.decision (rego/decision.rego). The bytes depend only on the inputs: the same
// layers and profile give the same bundle and revision.
package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/contractcheck/contractcheck/internal/bindpath"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Rego is the bundle's own Rego: the projector, the JSON pointer reader, the strict JSON reader,
// the diff and the decision, each with its _test.rego (the tests are not put in a bundle).
//
//go:embed rego/*.rego
var Rego embed.FS

// MaxPointerTokens is the deepest JSON pointer the bundle's projector reads (rego/pointer.rego);
// Build refuses a binding with a deeper one.
const MaxPointerTokens = 16

// DataPath is where the contract model, the profile, the source views and the provider request
// schemas the model's block mappings name (accepts) are in the bundle's data:
// data.contractcheck.contracts.
const DataPath = "contractcheck/contracts"

// reserved are the packages the bundle's own Rego declares: a policy layer may not declare them.
var reserved = []string{"contractcheck", "contractcheck.bundle"}

// File is one file of a bundle: its path inside the bundle (slash-separated, from the bundle's
// root) and its bytes.
type File struct {
	Path string
	Data []byte
}

// Bundle is an OPA bundle in memory: its manifest's revision and roots, and its files, the
// manifest among them, sorted by path.
type Bundle struct {
	Revision string
	Roots    []string
	Profile  string
	// QuoteData is the setting the bundle was built with (Settings).
	QuoteData bool
	Files     []File
}

// manifest is the .manifest file (OPA's bundle format).
type manifest struct {
	Revision    string         `json:"revision"`
	Roots       []string       `json:"roots"`
	RegoVersion int            `json:"rego_version"`
	Metadata    map[string]any `json:"metadata"`
}

// contracts is the bundle's data at DataPath.
type contracts struct {
	Profile   string          `json:"profile"`
	Model     *contract.Model `json:"model"`
	Sources   map[string]any  `json:"sources"`
	Providers map[string]any  `json:"providers"`
	// Optional is the model's optional atoms, sorted: what every decision would otherwise
	// compute again from the model. The projector's pointer table is in the generated module
	// (hotModule).
	Optional []string `json:"optional"`
}

// hotPath is the generated module holding, as Rego values, what every decision reads of the
// contract set (hotModule).
const hotPath = "contractcheck/bundle/hot.rego"

// hotModule generates the module contractcheck.bundle.hot: what every decision reads of the
// contract set, as Rego values. OPA converts a document read from its store into a Rego value
// on every read (a stock OPA run without --optimize-store-for-read-speed), and forces the whole
// of one passed to a function, to remember the function's result by its arguments; a rule's
// value is parsed once, when the bundle is activated. It holds the compartment bindings as the
// projector reads them (bindings, each distinct one once, and bound), the pointer table
// (pointerTable), every catalogued fixture's source view with its numbers respelled as the policy
// input's are (decision.rego, _source), and what strict JSON each string of those views holds, as
// the bundle's own json.text reads it (texts, jsonTexts). Each rule's value is parsed back and
// compared with what it was written from.
func hotModule(m *contract.Model, profile string, quote bool, sources, providers, texts map[string]any, reads func(task string) []string) ([]byte, error) {
	tasks := tasksAt(m, profile)
	narrowed, err := narrowedSources(m, sources, reads)
	if err != nil {
		return nil, err
	}
	bound, distinct, err := bindings(m)
	if err != nil {
		return nil, err
	}
	// A posted source of a fixture no catalogue entry names is read at the pinned revision
	// (rego/derive.rego), through that revision's binding.
	pinned, ok := m.SourceBinding(schema.DefaultRevision)
	if !ok {
		return nil, fmt.Errorf("source: %w", m.NoBinding(schema.DefaultRevision))
	}
	source, err := keyed(pinned)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	var b strings.Builder
	b.WriteString("# Generated by contractcheck bundle from the contract model: do not edit.\n")
	b.WriteString("# What every decision reads of the contract set, as Rego values (internal/bundle, hotModule).\n")
	b.WriteString("package contractcheck.bundle.hot\n")
	for _, r := range []struct {
		name    string
		v       any
		respell bool
	}{
		{"bound", bound, false},
		{"bindings", distinct, false},
		{"profile", profile, false},
		{"quote_data", quote, false},
		{"model", hotModel(m), false},
		{"optional", optionalAtoms(m), false},
		{"tasks", tasks, false},
		{"inputs", policyInputs(m, profile, tasks), false},
		{"providers", providers, false},
		{"source", source, false},
		{"pointers", pointerTable(m), false},
		{"sources", sources, true},
		{"narrowed", narrowed, true},
		{"texts", texts, false},
	} {
		// Read as JSON, not as Rego: a string may hold what Rego's parser refuses unescaped (a
		// byte-order mark), which appendRego escapes.
		doc, err := plainJSON(r.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		val, err := ast.InterfaceToValue(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		t := ast.NewTerm(val)
		if r.respell {
			t = ast.NewTerm(policy.Respell(t.Value))
		}
		text, err := appendRego(nil, t.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		back, err := ast.ParseTerm(string(text))
		if err != nil || back.Value.Compare(t.Value) != 0 {
			return nil, fmt.Errorf("%s does not read back as written (%v)", r.name, err)
		}
		fmt.Fprintf(&b, "\n%s := %s\n", r.name, text)
	}
	return []byte(b.String()), nil
}

// jsonTexts is what the bundle's own json.text (rego/json.rego) reads from each string of the
// catalogued source views that holds strict JSON, by the string: the JSON items of a source's text
// (T2's json_items) and a carrier's text that a framework kept as the source wrote it are read
// from this table, where json.text would otherwise parse and check the text on every decision. It
// is computed by the function it stands for, evaluated on the bundle's own modules before the
// table exists, so a string reads the same with or without it (rego/decision_test.rego holds the
// written table to json.text without it).
func jsonTexts(ctx context.Context, modules map[string]*ast.Module, sources map[string]any) (map[string]any, error) {
	seen := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(sources)) {
		doc, err := plainJSON(sources[id])
		if err != nil {
			return nil, fmt.Errorf("the source view of %s: %w", id, err)
		}
		collectStrings(doc, seen)
	}
	strs := make([]any, 0, len(seen))
	for _, s := range slices.Sorted(maps.Keys(seen)) {
		strs = append(strs, s)
	}
	const query = "x := {s: v | some s in input; v := data.contractcheck.bundle.json.text(s)}"
	// Evaluated as a stock OPA server evaluates a decision (a builtin's error leaves the call
	// undefined), so the table holds what a decision would read without it.
	rs, err := rego.New(rego.Query(query), rego.ParsedModule(modules["contractcheck/bundle/json.rego"]),
		rego.Input(strs)).Eval(ctx)
	if err != nil {
		return nil, fmt.Errorf("the strict JSON of the source views' strings: %w", err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("the strict JSON of the source views' strings: %d results", len(rs))
	}
	texts, ok := rs[0].Bindings["x"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the strict JSON of the source views' strings: not an object")
	}
	return texts, nil
}

// collectStrings adds every string value of the JSON tree v (plain maps and lists), at any
// depth, to seen; object keys are not values and are left out.
func collectStrings(v any, seen map[string]bool) {
	strictjson.EachString(v, func(s string) { seen[s] = true })
}

// binding is a compartment binding as the projector reads it (rego/project.rego, view): the
// model's Compartment without its doc and basis, which OPA would otherwise read from the store
// and hash, on every decision, to remember the projector's results by their arguments.
type binding struct {
	Root       string                   `json:"root"`
	Unwrap     string                   `json:"unwrap"`
	Content    *contract.ContentBinding `json:"content,omitempty"`
	Structured *contract.Field          `json:"structured,omitempty"`
	IsError    *contract.ErrorField     `json:"isError,omitempty"`
	Raised     *contract.Field          `json:"raised,omitempty"`
	Meta       *contract.Field          `json:"meta,omitempty"`
}

// hotModel is the part of the contract model a decision reads (rego/decision.rego): the tasks,
// fixtures and profiles, and of each lane its versions, configurations and its stages'
// exposures (the stages' bindings are in bindings).
func hotModel(m *contract.Model) map[string]any {
	lanes := map[string]any{}
	for l, lane := range m.Lanes {
		stages := map[string]any{}
		for s, st := range lane.Stages {
			stages[s] = map[string]string{"exposure": st.Exposure}
		}
		lanes[l] = map[string]any{"versions": lane.Versions, "configurations": lane.Configurations, "stages": stages}
	}
	return map[string]any{"tasks": m.Tasks, "fixtures": m.Fixtures, "profiles": m.Profiles, "lanes": lanes}
}

// tasksAt are the tasks the profile evaluates on each catalogued fixture at each stage of the
// model's lanes, in the fixture's order, as rego/decision.rego works them out (_tasks) for an
// input that selects no task.
func tasksAt(m *contract.Model, profile string) map[string]map[string][]string {
	stages := map[string]bool{}
	for _, lane := range m.Lanes {
		for s := range lane.Stages {
			stages[s] = true
		}
	}
	selected := m.Profiles[profile].Tasks
	out := map[string]map[string][]string{}
	for id, f := range m.Fixtures {
		out[id] = map[string][]string{}
		for s := range stages {
			ts := []string{}
			for _, t := range f.Tasks {
				if (len(selected) == 0 || slices.Contains(selected, t)) && m.Tasks[t].AtStage(s) {
					ts = append(ts, t)
				}
			}
			out[id][s] = ts
		}
	}
	return out
}

// narrowedSources are, for each catalogued fixture and task it names, the fixture's source view
// narrowed to the members the task's policy reads (Dispatch, narrow), the whole view for a policy
// that declares none.
func narrowedSources(m *contract.Model, sources map[string]any, reads func(task string) []string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	for id, f := range m.Fixtures {
		doc, err := plainJSON(sources[id])
		if err != nil {
			return nil, fmt.Errorf("the source view of %s: %w", id, err)
		}
		view, ok := doc.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("the source view of %s is not an object", id)
		}
		out[id] = map[string]any{}
		for _, t := range f.Tasks {
			members := reads(t)
			if members == nil {
				out[id][t] = view
				continue
			}
			n := map[string]any{}
			for _, k := range members {
				if v, ok := view[k]; ok {
					n[k] = v
				}
			}
			out[id][t] = n
		}
	}
	return out, nil
}

// policyInputs are, for each catalogued fixture, stage and task of tasks (tasksAt), the members
// of the task's policy input that do not depend on the carrier (task, stage, fixture, contract),
// as rego/decision.rego works them out (policy_input).
func policyInputs(m *contract.Model, profile string, tasks map[string]map[string][]string) map[string]map[string]map[string]any {
	p := m.Profiles[profile]
	optional := optionalAtoms(m)
	out := map[string]map[string]map[string]any{}
	for id, byStage := range tasks {
		f := m.Fixtures[id]
		out[id] = map[string]map[string]any{}
		for stage, ts := range byStage {
			meta := map[string]any{"mode": "preserve"}
			if w := p.WithholdPrivateMeta; w != nil && len(f.PrivateMeta) > 0 && slices.Contains(w.Stages, stage) {
				meta = map[string]any{"mode": "withhold", "keys": f.PrivateMeta}
			}
			out[id][stage] = map[string]any{}
			for _, t := range ts {
				out[id][stage][t] = map[string]any{
					"task":     t,
					"stage":    stage,
					"fixture":  map[string]any{"id": id, "family": f.Family, "suite": f.Suite},
					"contract": map[string]any{"atoms": m.Tasks[t].Atoms, "optional": optional, "nullPolicy": p.NullPolicy, "metaPolicy": meta},
				}
			}
		}
	}
	return out
}

// compact is the compartment binding b as the projector reads it.
func compact(b contract.Compartment) binding {
	return binding{Root: b.Root, Unwrap: b.Unwrap, Content: b.Content,
		Structured: b.Structured, IsError: b.IsError, Raised: b.Raised, Meta: b.Meta}
}

// bindings are the model's compartment bindings as the projector reads them (keyed), each
// distinct one once (distinct), and for each lane, stage and compartment the index of its binding
// in distinct (bound). Most stages bind every compartment alike: written once per compartment,
// the built-in bindings took 227 KB of the module's 468 where they now take 43, and OPA's
// activation of the bundle, which parses the module, took 0.47 s and 76 MB where it takes 0.31 s
// and 66 MB.
func bindings(m *contract.Model) (bound map[string]map[string]map[string]int, distinct []any, err error) {
	bound = map[string]map[string]map[string]int{}
	index := map[string]int{}
	for _, l := range slices.Sorted(maps.Keys(m.Lanes)) {
		lane := m.Lanes[l]
		bound[l] = map[string]map[string]int{}
		for _, s := range slices.Sorted(maps.Keys(lane.Stages)) {
			stage := lane.Stages[s]
			bound[l][s] = map[string]int{}
			for _, c := range slices.Sorted(maps.Keys(stage.Compartments)) {
				k, err := keyed(stage.Compartments[c])
				if err != nil {
					return nil, nil, fmt.Errorf("lanes.%s.stages.%s.compartments.%s: %w", l, s, c, err)
				}
				text, err := strictjson.EncodeLine(k)
				if err != nil {
					return nil, nil, fmt.Errorf("lanes.%s.stages.%s.compartments.%s: %w", l, s, c, err)
				}
				i, ok := index[string(text)]
				if !ok {
					i = len(distinct)
					index[string(text)] = i
					distinct = append(distinct, k)
				}
				bound[l][s][c] = i
			}
		}
	}
	return bound, distinct, nil
}

// keyed is the compartment binding b as the projector reads it from the generated module: without
// its doc and basis (compact), and each plain field (no decoder, types or inner pointer) whose
// path names one object member (one reference token that does not read as an array index) with
// that member's name as "key": rego/project.rego reads such a field as the member itself, where a
// field of a binding without keys is looked up, type-checked and decoded in three calls.
func keyed(b contract.Compartment) (map[string]any, error) {
	doc, err := plainJSON(compact(b))
	if err != nil {
		return nil, err
	}
	out, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the binding is not an object")
	}
	for _, name := range []string{"structured", "raised", "meta"} {
		keyField(out[name])
	}
	if c, ok := out["content"].(map[string]any); ok {
		keyKinds(c["kinds"])
	}
	return out, nil
}

// keyKinds gives the plain fields of each block mapping of kinds, and of its embedded kinds, their
// key (keyed).
func keyKinds(kinds any) {
	ks, _ := kinds.(map[string]any)
	for _, m := range ks {
		mapping, _ := m.(map[string]any)
		if fields, ok := mapping["fields"].(map[string]any); ok {
			for _, f := range fields {
				keyField(f)
			}
		}
		if e, ok := mapping["embedded"].(map[string]any); ok {
			keyKinds(e["kinds"])
		}
	}
}

// keyField gives the field f its key when it is plain and its path names one object member
// (keyed).
func keyField(f any) {
	field, ok := f.(map[string]any)
	if !ok {
		return
	}
	if d, _ := field["decode"].(string); d != "" && d != "none" {
		return
	}
	if _, ok := field["types"]; ok {
		return
	}
	if _, ok := field["inner"]; ok {
		return
	}
	path, _ := field["path"].(string)
	toks, err := strictjson.ParsePointer(path)
	if err != nil || len(toks) != 1 || indexLike.MatchString(toks[0]) {
		return
	}
	field["key"] = toks[0]
}

// indexLike matches a reference token that may read as an array index (rego/pointer.rego, _index).
var indexLike = regexp.MustCompile(`^[+-]?[0-9]+$`)

// Settings are what a bundle decides beyond the contract set it holds.
type Settings struct {
	// QuoteData makes the decision quote the values of the user's data its diagnostics name
	// (expected, observed) as their JSON text; without it they are described by type, length
	// and digest (rego/decision.rego, logged_value), so that a decision log holds none of the
	// user's data (docs/opa.md, "Decision logs").
	QuoteData bool
}

// Build loads the contract set as check does (every layer validated, the profile known) and
// makes its bundle for opts.Profile, with the default Settings.
func Build(ctx context.Context, opts inputs.Options) (*Bundle, error) {
	return BuildWith(ctx, opts, Settings{})
}

// BuildWith is Build with the bundle's settings.
func BuildWith(ctx context.Context, opts inputs.Options, settings Settings) (*Bundle, error) {
	if opts.Profile == "" {
		opts.Profile = inputs.DefaultProfile
	}
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := checkPointers(in.Model); err != nil {
		return nil, &result.InputError{Err: err}
	}
	var files []File
	modules := map[string]*ast.Module{}
	policies, err := policyFiles(opts.PolicyLayers(), modules)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	files = append(files, policies...)
	own, err := fs.Glob(Rego, "rego/*.rego")
	if err != nil {
		return nil, err
	}
	for _, name := range own {
		if strings.HasSuffix(name, "_test.rego") {
			continue
		}
		data, err := Rego.ReadFile(name)
		if err != nil {
			return nil, err
		}
		p := "contractcheck/bundle/" + path.Base(name)
		if modules[p], err = ast.ParseModuleWithOpts(p, string(data), ast.ParserOptions{RegoVersion: ast.RegoV1}); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		files = append(files, File{Path: p, Data: data})
	}
	dispatch, err := Dispatch(in.Model, modules, in.ViewReads)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	const dispatchPath = "contractcheck/bundle/tasks.rego"
	if modules[dispatchPath], err = ast.ParseModuleWithOpts(dispatchPath, string(dispatch), ast.ParserOptions{RegoVersion: ast.RegoV1}); err != nil {
		return nil, fmt.Errorf("bundle: the generated dispatch: %w", err)
	}
	files = append(files, File{Path: dispatchPath, Data: dispatch})
	sources := map[string]any{}
	for id := range in.Model.Fixtures {
		sources[id] = in.SourceView(id)
	}
	providers, err := providerSchemas(in.Model)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	texts, err := jsonTexts(ctx, modules, sources)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	hot, err := hotModule(in.Model, opts.Profile, settings.QuoteData, sources, providers, texts, in.ViewReads)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if modules[hotPath], err = ast.ParseModuleWithOpts(hotPath, string(hot), ast.ParserOptions{RegoVersion: ast.RegoV1}); err != nil {
		return nil, fmt.Errorf("bundle: the generated %s: %w", hotPath, err)
	}
	files = append(files, File{Path: hotPath, Data: hot})
	if err := compileStock(modules); err != nil {
		return nil, err
	}
	data, err := strictjson.EncodeLine(contracts{Profile: opts.Profile, Model: in.Model, Sources: sources, Providers: providers,
		Optional: optionalAtoms(in.Model)})
	if err != nil {
		return nil, fmt.Errorf("bundle: data: %w", err)
	}
	files = append(files, File{Path: DataPath + "/data.json", Data: data})
	b := &Bundle{Roots: roots(modules), Profile: opts.Profile, QuoteData: settings.QuoteData}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", f.Path, len(f.Data))
		h.Write(f.Data)
	}
	b.Revision = hex.EncodeToString(h.Sum(nil))[:32]
	m, err := strictjson.EncodeLine(manifest{Revision: b.Revision, Roots: b.Roots, RegoVersion: 1,
		Metadata: map[string]any{"contractcheck": map[string]any{"profile": opts.Profile, "entrypoint": "contractcheck/decision", "quoteData": settings.QuoteData}}})
	if err != nil {
		return nil, err
	}
	b.Files = append([]File{{Path: ".manifest", Data: m}}, files...)
	return b, nil
}

// policyFiles reads every policy file of the layers (tests left out), rewrites the calls to the
// checker's custom builtins and formats it; modules receives each parsed, rewritten module. A
// layer's files go under policies/<n>/, n the layer's index (0 the built-in one when it is read).
func policyFiles(layers []layer.Dir, modules map[string]*ast.Module) ([]File, error) {
	var out []File
	for i, d := range layers {
		err := fs.WalkDir(d.FS, d.Root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() || !strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, "_test.rego") {
				return nil
			}
			rel := d.Rel(p)
			_, display := d.Path(rel)
			src, err := safeio.ReadFile(d.FS, p, safeio.MaxFileBytes)
			if err != nil {
				return fmt.Errorf("%s: %w", display, err)
			}
			m, err := ast.ParseModuleWithOpts(display, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: policy.Capabilities()})
			if err != nil {
				return err
			}
			pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
			if slices.Contains(reserved, pkg) || strings.HasPrefix(pkg, "contractcheck.bundle.") {
				return fmt.Errorf("%s: package %s is reserved for the bundle's own Rego (name yours differently)", display, pkg)
			}
			RewriteBuiltins(m)
			formatted, err := format.AstWithOpts(m, format.Opts{RegoVersion: ast.RegoV1})
			if err != nil {
				return fmt.Errorf("%s: %w", display, err)
			}
			bp := fmt.Sprintf("policies/%d/%s", i, rel)
			if modules[bp], err = ast.ParseModuleWithOpts(bp, string(formatted), ast.ParserOptions{RegoVersion: ast.RegoV1}); err != nil {
				return fmt.Errorf("%s rewritten: %w", display, err)
			}
			out = append(out, File{Path: bp, Data: formatted})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("bundle: policies under %s: %w", d.Display, err)
		}
	}
	return out, nil
}

// Replacements maps each custom builtin of the checker to the pure-Rego function the bundle
// calls instead (rego/diff.rego, rego/json.rego).
var Replacements = map[string]ast.Ref{
	policy.DiffBuiltin:     ast.MustParseRef("data.contractcheck.bundle.diff.between"),
	policy.JSONTextBuiltin: ast.MustParseRef("data.contractcheck.bundle.json.text"),
}

// RewriteBuiltins replaces, in a module, every call to a custom builtin of the checker by a call
// to its pure-Rego equivalent (Replacements), so that a stock OPA evaluates the module. A call's
// operator is the first element of a call term (contractcheck.json_text(t) as an operand) or the
// first term of an expression (a bare call; x := contractcheck.json_text(t) is an expression
// whose operator is :=); a reference to a builtin anywhere else (a with target or value) is left
// as written.
func RewriteBuiltins(m *ast.Module) {
	ast.NewGenericVisitor(func(x any) bool {
		var ops []*ast.Term
		switch x := x.(type) {
		case *ast.Term:
			ops, _ = x.Value.(ast.Call)
		case *ast.Expr:
			ops, _ = x.Terms.([]*ast.Term)
		}
		if len(ops) > 0 {
			if ref, ok := ops[0].Value.(ast.Ref); ok {
				if to, found := Replacements[ref.String()]; found {
					ops[0] = ast.NewTerm(to.Copy()).SetLocation(ops[0].Location)
				}
			}
		}
		return false
	}).Walk(m)
}

// Dispatch generates the module contractcheck.bundle.tasks: verdict(task, x) evaluates the
// task's policy package (the model's tasks.<id>.policy) with x as its input and gives its
// diagnostics and readout ({} when the package defines none, as check does). reads gives the
// view members a task's policy declares it reads (policy.Query.ViewReads): narrow(task, view)
// narrows a view to them, as check narrows the source and observed views, so that stock OPA and
// check hand a policy the same input (rego/decision.rego narrows x's views before the verdict:
// a catalogued source's narrowed views are the bundle writer's, hotModule).
func Dispatch(m *contract.Model, modules map[string]*ast.Module, reads func(task string) []string) ([]byte, error) {
	var b strings.Builder
	b.WriteString("# Generated by contractcheck bundle from the contract model: do not edit.\n")
	b.WriteString("# verdict(task, x) evaluates the task's policy package with x as its input;\n")
	b.WriteString("# narrow(task, view) is a view narrowed to the members the task's policy reads.\n")
	b.WriteString("package contractcheck.bundle.tasks\n\n")
	for _, id := range contract.SortedKeys(m.Tasks) {
		pkg := m.Tasks[id].Policy
		ref, err := ast.ParseRef("data." + pkg)
		if err != nil {
			return nil, fmt.Errorf("tasks.%s.policy: %q is not a Rego package name", id, pkg)
		}
		found, readout := false, false
		for _, mod := range modules {
			if !mod.Package.Path.Equal(ref) {
				continue
			}
			found = true
			for _, r := range mod.Rules {
				readout = readout || r.Head.Name == "readout" || r.Head.Ref().String() == "readout"
			}
		}
		if !found {
			return nil, fmt.Errorf("tasks.%s.policy: package %s not found in the policies", id, pkg)
		}
		// One expression under one with: the package's rules are evaluated once for both.
		r := "{}"
		if readout {
			r = ref.String() + ".readout"
		}
		fmt.Fprintf(&b, "verdict(%q, x) := v if {\n\tv := {\"diagnostics\": %s.diagnostics, \"readout\": %s} with input as x\n}\n\n", id, ref, r)
		if members := reads(id); members != nil {
			list, err := json.Marshal(members)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "narrow(%q, view) := object.filter(view, %s)\n\n", id, list)
		} else {
			fmt.Fprintf(&b, "narrow(%q, view) := view\n\n", id)
		}
	}
	out, err := format.SourceWithOpts("tasks.rego", []byte(b.String()), format.Opts{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("the generated dispatch: %w", err)
	}
	return out, nil
}

// compileStock compiles the bundle's modules with the capabilities of a stock OPA of this
// version: nothing in the bundle may need the checker's custom builtins.
func compileStock(modules map[string]*ast.Module) error {
	c := ast.NewCompiler().WithCapabilities(ast.CapabilitiesForThisVersion()).WithDefaultRegoVersion(ast.RegoV1)
	c.Compile(modules)
	if c.Failed() {
		return fmt.Errorf("bundle: the bundle does not compile on a stock OPA: %v", c.Errors)
	}
	return nil
}

// roots are the bundle's roots: the first segment of every package, and of the data path.
func roots(modules map[string]*ast.Module) []string {
	seen := map[string]bool{strings.Split(DataPath, "/")[0]: true}
	for _, m := range modules {
		if s, ok := m.Package.Path[1].Value.(ast.String); ok {
			seen[string(s)] = true
		}
	}
	return contract.SortedKeys(seen)
}

// checkPointers refuses a binding with a pointer deeper than the bundle's projector reads, or with
// a path that is not an RFC 6901 pointer: a value selector (bindpath), which rego/pointer.rego does
// not read; and a task that reads source compartments (contract.Task.Sources), which the bundle's
// policy input does not hold.
func checkPointers(m *contract.Model) error {
	var errs []string
	eachPointer(m, func(where, p string) {
		if _, err := strictjson.ParsePointer(p); err != nil {
			errs = append(errs, fmt.Sprintf("%s: path %q is not a JSON pointer the bundle's projector reads (%v)", where, p, err))
			return
		}
		if bp, err := bindpath.Parse(p); err == nil && bp.HasSelector() {
			errs = append(errs, fmt.Sprintf("%s: path %q selects an array element by value; the bundle's projector reads JSON pointers only", where, p))
			return
		}
		if n := strings.Count(p, "/"); n > MaxPointerTokens {
			errs = append(errs, fmt.Sprintf("%s: pointer %q has %d tokens; the bundle's projector reads at most %d", where, p, n, MaxPointerTokens))
		}
	})
	for _, id := range contract.SortedKeys(m.Tasks) {
		if len(m.Tasks[id].Sources) > 0 {
			errs = append(errs, fmt.Sprintf("tasks.%s.sources: the task reads source compartments (%s), which the bundle's policy input does not carry", id, strings.Join(m.Tasks[id].Sources, ", ")))
		}
	}
	sort.Strings(errs)
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

// eachPointer calls visit with every JSON pointer the model's compartment bindings hold (each
// revision's source binding's and every lane stage's), and where it is.
func eachPointer(m *contract.Model, visit func(where, p string)) {
	field := func(where string, f contract.Field) {
		visit(where+".path", f.Path)
		if f.Inner != nil {
			visit(where+".inner", *f.Inner)
		}
	}
	var kinds func(where string, ks map[string]contract.BlockMapping)
	kinds = func(where string, ks map[string]contract.BlockMapping) {
		for _, t := range contract.SortedKeys(ks) {
			bm := ks[t]
			for _, a := range contract.SortedKeys(bm.Fields) {
				field(where+".kinds."+t+".fields."+a, bm.Fields[a])
			}
			if e := bm.Embedded; e != nil {
				visit(where+".kinds."+t+".embedded.path", e.Path)
				visit(where+".kinds."+t+".embedded.discriminator", e.Discriminator)
				kinds(where+".kinds."+t+".embedded", e.Kinds)
			}
		}
	}
	compartment := func(where string, c contract.Compartment) {
		visit(where+".root", c.Root)
		if c.Content != nil {
			visit(where+".content.path", c.Content.Path)
			visit(where+".content.discriminator", c.Content.Discriminator)
			kinds(where+".content", c.Content.Kinds)
		}
		for _, f := range []struct {
			name string
			f    *contract.Field
		}{{"structured", c.Structured}, {"raised", c.Raised}, {"meta", c.Meta}} {
			if f.f != nil {
				field(where+"."+f.name, *f.f)
			}
		}
		if c.IsError != nil {
			visit(where+".isError.path", c.IsError.Path)
		}
	}
	for _, rev := range contract.SortedKeys(m.Revisions) {
		compartment(contract.SourceName(rev), m.Revisions[rev].Source)
	}
	for _, l := range contract.SortedKeys(m.Lanes) {
		for _, st := range contract.SortedKeys(m.Lanes[l].Stages) {
			sd := m.Lanes[l].Stages[st]
			for _, name := range contract.SortedKeys(sd.Compartments) {
				compartment(fmt.Sprintf("lanes.%s.stages.%s.compartments.%s", l, st, name), sd.Compartments[name])
			}
		}
	}
}

// optionalAtoms are the model's optional atoms, sorted (rego/decision.rego, _optional).
func optionalAtoms(m *contract.Model) []string {
	out := []string{}
	for _, a := range contract.SortedKeys(m.Atoms) {
		if m.Atoms[a].Optional {
			out = append(out, a)
		}
	}
	return out
}

// maxPointerPaths bounds the typed paths a pointer's entry in the bundle's pointer table lists
// (two per token that reads as an array index); a pointer that would need more is left out and
// read step by step (rego/pointer.rego, follow).
const maxPointerPaths = 16

// pointerTable maps every pointer of the model's bindings to the typed paths it can name, each
// under the key "v" (rego/pointer.rego, lookup): a token that reads as an array index (as
// pointer.rego's _index reads it: an optional sign, no leading zero, not negative) is either that
// index, when its parent is an array, or the key, when its parent is an object. At most one of
// the paths is in a document, and the value there is the value step by step: the projector reads
// a pointer with one object.get per path instead of one rule per token.
func pointerTable(m *contract.Model) map[string][][]any {
	table := map[string][][]any{}
	eachPointer(m, func(_, p string) {
		if paths, ok := pointerPaths(p); ok {
			table[p] = paths
		}
	})
	return table
}

// pointerPaths are pointer p's typed paths under "v" (pointerTable); false for a pointer the
// table leaves out: not a pointer (strictjson.ParsePointer refuses it), deeper than
// MaxPointerTokens, or with more than maxPointerPaths paths.
func pointerPaths(p string) ([][]any, bool) {
	toks, err := strictjson.ParsePointer(p)
	if err != nil || len(toks) > MaxPointerTokens {
		return nil, false
	}
	paths := [][]any{{"v"}}
	for _, t := range toks {
		n, index := arrayIndex(t)
		var next [][]any
		for _, path := range paths {
			next = append(next, append(slices.Clone(path), t))
			if index {
				next = append(next, append(slices.Clone(path), n))
			}
		}
		if paths = next; len(paths) > maxPointerPaths {
			return nil, false
		}
	}
	return paths, true
}

// indexToken is a reference token pointer.rego reads as an array index.
var indexToken = regexp.MustCompile(`^[+-]?[0-9]+$`)

// arrayIndex is the array index token t names, as pointer.rego's _index reads it (Go's
// strconv.Atoi without its range: an optional sign, no leading zero, not negative; "-0" is 0),
// written as a JSON number.
func arrayIndex(t string) (json.Number, bool) {
	if !indexToken.MatchString(t) || (len(t) > 1 && t[0] == '0') {
		return "", false
	}
	digits := strings.TrimLeft(strings.TrimLeft(t, "+-"), "0")
	if digits == "" {
		digits = "0"
	}
	if t[0] == '-' && digits != "0" {
		return "", false
	}
	return json.Number(digits), true
}

// plainJSON is v as the bundle's data holds it: written as JSON (marshal) and read back as plain
// maps, lists, strings, booleans and numbers, each number as spelt (json.Number).
func plainJSON(v any) (any, error) {
	raw, err := strictjson.EncodeLine(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// WriteTarGz writes the bundle as the gzipped tarball OPA loads (opa run --bundle): its files
// under /, in order, with fixed times, owners and modes, so the same bundle gives the same bytes.
func (b *Bundle) WriteTarGz(w io.Writer) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, f := range b.Files {
		hdr := &tar.Header{Name: "/" + f.Path, Mode: 0o644, Size: int64(len(f.Data)), ModTime: time.Unix(0, 0).UTC(),
			Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("bundle: %s: %w", f.Path, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return fmt.Errorf("bundle: %s: %w", f.Path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}
