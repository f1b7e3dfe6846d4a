// Package schema validates JSON documents against the project's pinned JSON
// Schemas. It is step 2 of the pipeline
//
//	strictjson → schema → contract → project → policy → census → report
//
// It takes the exact trees that package strictjson decodes (map[string]any,
// []any, string, bool, nil, json.Number) and checks
//
//   - sources (W0 tool results) against the MCP schema of a protocol
//     revision, one of those the schema layers hold (revisions.go): a bare
//     CallToolResult, or a JSON-RPC response envelope;
//   - observation records (one JSONL line each) against
//     schemas/contractcheck/observation-record.schema.json;
//   - JSON reports against schemas/contractcheck/report.schema.json.
//
// All schemas are read from one fs.FS rooted at the schemas/ directory, with
// the MCP revisions of the user's schema layers served beside it
// (NewLayered), and compiled once; nothing is fetched over the network or read
// from outside the schema layers. Formats are asserted, not merely annotated (see New).
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// DefaultRevision is the MCP protocol revision pinned by the project: the revision of a source
// no one names. The revisions a validator knows are those its schema layers hold (Revisions).
const DefaultRevision = "2025-11-25"

// Paths of the project's own schemas inside the schemas/ directory.
const (
	RecordSchemaPath = "contractcheck/observation-record.schema.json"
	ReportSchemaPath = "contractcheck/report.schema.json"
)

// MCPSchemaPath returns the path of a revision's MCP schema inside the
// schemas/ directory.
func MCPSchemaPath(revision string) string {
	return "mcp/" + revision + "/schema.json"
}

// baseURL names the schemas directory for the compiler. The scheme is private
// to this package: fsLoader serves it from the fs.FS given to New and
// refuses everything else (the JSON Schema meta-schemas are built into the
// library and never loaded).
const baseURL = "contractcheck-schemas:///"

// revision holds one revision's compiled definitions, compiled on first use.
type revision struct {
	info Revision
	desc *descriptor
	once sync.Once
	err  error

	callToolResult *jsonschema.Schema
	errorResponse  *jsonschema.Schema
	resultResponse *jsonschema.Schema
}

// Validator validates sources, observation records and reports. It is safe
// for concurrent use: compiled schemas are read-only, each validation keeps
// its state on its own stack, and every schema compiles once, on first use,
// with a compiler of its own (see compile).
type Validator struct {
	docs      *docCache
	revisions map[string]*revision
	order     []string   // the revisions' names, in order (CompareRevisions)
	record    lazySchema // compiled when a record fails the check in Go (recordConforms)
	report    lazySchema
	compare   lazySchema
	study     lazySchema
	lock      lazySchema
	carriers  sync.Map // schema path → *lazySchema
	providers sync.Map // schema path → *lazySchema
}

// New is NewLayered with no user layer: the revisions are those of fsys.
func New(fsys fs.FS) (*Validator, error) { return NewLayered(fsys, nil) }

// NewLayered finds the MCP revisions of the schema layers: every mcp/<revision>/schema.json of
// fsys (the built-in schemas directory, shown as builtin:schemas) and of each user layer, in
// order, with its descriptor (see revisions.go). A badly named revision directory, one without a
// schema.json, a bad descriptor, a revision an earlier layer holds (unless the descriptor says
// "replace": true) are errors naming the files. Carrier schemas and the project's own are read
// from fsys alone.
//
// Every schema compiles once, on first use: a revision's MCP schema by
// ValidateSource (compiling one takes tens of milliseconds, and most runs use
// one revision), the observation record schema when a record fails the check
// in Go (recordConforms), the report schema by ValidateReport; a run that
// needs neither does not pay for them (TestOwnSchemasCompile compiles both).
// fsys is rooted at the schemas/ directory: it holds
// mcp/<revision>/schema.json and contractcheck/*.schema.json.
//
// Formats are asserted for every draft (draft 2020-12 only annotates them by
// default): "byte" (image and audio data, blob contents) must be standard
// padded base64 and "uri" an absolute RFC 3986 URI; both are implemented
// here (see validateByte and validateURI).
func NewLayered(fsys fs.FS, users []layer.Dir) (*Validator, error) {
	rfs := revisionFS{base: fsys, users: map[string]layer.Dir{}}
	v := &Validator{docs: &docCache{fsys: rfs, display: rfs.display}, revisions: map[string]*revision{}}
	builtin, err := revisionsIn(fsys, ".", builtinDisplay)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	for _, f := range builtin {
		if f.desc != nil && f.desc.replace {
			return nil, &ValidationError{File: f.desc.file, Pointer: "/replace", Msg: "the built-in layer replaces nothing"}
		}
		v.revisions[f.name] = &revision{info: Revision{Name: f.name, File: f.file, Builtin: true}, desc: f.desc}
	}
	for _, d := range users {
		fromLayer, err := revisionsIn(d.FS, d.Root, d.Display)
		if err != nil {
			return nil, err
		}
		for _, f := range fromLayer {
			earlier, held := v.revisions[f.name]
			replace := f.desc != nil && f.desc.replace
			if held && !replace {
				same, err := v.sameRevision(earlier, d, f)
				if err != nil {
					return nil, err
				}
				if same {
					continue // a copy of the earlier layer's (an exported schemas directory): nothing changes
				}
			}
			switch {
			case held && !replace:
				return nil, fmt.Errorf("%s: MCP revision %s is already defined by an earlier schema layer at %s: a layer adds revisions, it does not silently change one; to try a changed schema name its directory DRAFT-… (or a new date), or write {\"replace\": true} in %s to replace it on purpose",
					f.file, f.name, earlier.info.File, strings.TrimSuffix(f.file, "schema.json")+DescriptorName)
			case !held && replace:
				return nil, &ValidationError{File: f.desc.file, Pointer: "/replace", Msg: fmt.Sprintf("no earlier schema layer holds revision %s: there is nothing to replace", f.name)}
			}
			r := &revision{info: Revision{Name: f.name, File: f.file}, desc: f.desc}
			if held {
				r.info.Replaces = earlier.info.File
			}
			v.revisions[f.name] = r
			rfs.users[f.name] = d
		}
	}
	for name := range v.revisions {
		v.order = append(v.order, name)
	}
	slices.SortFunc(v.order, CompareRevisions)
	// A user revision's schema is read under its own place, whatever its root $id (ids.go).
	own := map[string]string{}
	for _, name := range v.order {
		if r := v.revisions[name]; !r.info.Builtin {
			own[MCPSchemaPath(name)] = r.info.File
		}
	}
	ids, err := v.docs.collectIDs(own)
	if err != nil {
		return nil, err
	}
	v.docs.ids, v.docs.own = ids, map[string]bool{}
	for p := range own {
		v.docs.own[p] = true
	}
	// A user layer's revision is read and compiled now, so that a schema that is not JSON, lacks
	// the definitions a source is validated against, or whose references reach nothing is
	// reported, naming the schema, before any source is read.
	for _, name := range v.order {
		if v.revisions[name].info.Builtin {
			continue
		}
		if _, err := v.load(name); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// sameRevision reports whether a user layer's revision directory f (in layer d) is a copy of the
// earlier layer's: the same schema.json bytes and the same descriptor.
func (v *Validator) sameRevision(earlier *revision, d layer.Dir, f found) (bool, error) {
	if !sameDescriptor(earlier.desc, f.desc) {
		return false, nil
	}
	p, _ := d.Path(MCPSchemaPath(f.name))
	mine, err := safeio.ReadFile(d.FS, p, safeio.MaxFileBytes)
	if err != nil {
		return false, fmt.Errorf("%s: %w", f.file, safeio.PathCause(err))
	}
	theirs, err := safeio.ReadFile(v.docs.fsys, MCPSchemaPath(f.name), safeio.MaxFileBytes)
	if err != nil {
		return false, fmt.Errorf("%s: %w", earlier.info.File, safeio.PathCause(err))
	}
	return bytes.Equal(mine, theirs), nil
}

// definitions resolves the fragments a revision's sources are validated against.
func (v *Validator) definitions(r *revision) (definitions, error) {
	path := MCPSchemaPath(r.info.Name)
	doc, err := v.docs.get(path)
	if err != nil {
		return definitions{}, fmt.Errorf("schema: %w", err)
	}
	return resolve(doc, r.desc, r.info.File)
}

// lazySchema is a schema compiled on first use, once, however many goroutines ask for it at the
// same time, or the error compiling it gave.
type lazySchema struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// get compiles the schema at path the first time it is asked for.
func (l *lazySchema) get(v *Validator, path string) (*jsonschema.Schema, error) {
	l.once.Do(func() {
		var s []*jsonschema.Schema
		if s, l.err = v.compile(path); l.err == nil {
			l.schema = s[0]
		}
	})
	return l.schema, l.err
}

// validate validates doc, read from file ("" for none), against the schema at path, compiled on
// first use: a violation is a *ValidationError naming file and the JSON pointer.
func (l *lazySchema) validate(v *Validator, path, file string, doc any) error {
	s, err := l.get(v, path)
	if err != nil {
		return err
	}
	return validateDoc(s, file, doc)
}

// validateDoc validates doc, read from file ("" for none), against s: a violation is a
// *ValidationError naming file and the JSON pointer.
func validateDoc(s *jsonschema.Schema, file string, doc any) error {
	if err := s.Validate(doc); err != nil {
		return convert(err, file, 0, "", nil)
	}
	return nil
}

// lazyIn is the entry for path in m, made on first use.
func lazyIn(m *sync.Map, path string) *lazySchema {
	e, ok := m.Load(path)
	if !ok {
		e, _ = m.LoadOrStore(path, &lazySchema{})
	}
	return e.(*lazySchema)
}

// newCompiler returns a compiler that loads schemas with l only and asserts formats (see New).
func newCompiler(l fsLoader) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(l)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: validateByte})
	c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: validateURI})
	return c
}

// load returns a revision with its definitions compiled.
func (v *Validator) load(rev string) (*revision, error) {
	r, ok := v.revisions[rev]
	if !ok {
		return nil, v.UnknownRevision(rev)
	}
	r.once.Do(func() {
		var d definitions
		if d, r.err = v.definitions(r); r.err != nil {
			return
		}
		path := MCPSchemaPath(rev)
		var s []*jsonschema.Schema
		if s, r.err = v.compile(path+d.result, path+d.errorResponse, path+d.resultResponse); r.err == nil {
			r.callToolResult, r.errorResponse, r.resultResponse = s[0], s[1], s[2]
		} else if !r.info.Builtin {
			r.err = fmt.Errorf("%s: %w", r.info.File, r.err)
		}
	})
	return r, r.err
}

// Source is a validated source result.
type Source struct {
	// Revision is the MCP revision the source was validated against.
	Revision string
	// Result is the CallToolResult object; nil for a JSON-RPC error response.
	Result map[string]any
	// RPCError is the "error" object of a JSON-RPC error response; nil
	// otherwise.
	RPCError map[string]any
	// Envelope reports that the source came wrapped in a JSON-RPC response.
	Envelope bool
}

// ValidateSource validates a decoded source document against the MCP schema
// of revision ("" means DefaultRevision). A document with a "jsonrpc" key is
// a JSON-RPC response: with an "error" key it is validated as an error
// response and returned with RPCError set and Result nil; otherwise it is
// validated as a result response and its "result" as a CallToolResult
// (error pointers then start with /result). Any other document is validated
// as a bare CallToolResult.
//
// A schema violation is a *ValidationError naming file and JSON pointer; an
// unknown revision is a plain error listing the known ones.
func (v *Validator) ValidateSource(file, revision string, doc any) (*Source, error) {
	return v.source(file, revision, doc, true)
}

// KnownSource reads a source document the way ValidateSource does, without validating it: for
// a document already known to be valid at that revision (check's built-in sources, validated
// when the binary is built), so that reading it compiles no MCP schema. The errors that do not
// need a schema (not an object, both result and error, an unknown revision) are still returned.
func (v *Validator) KnownSource(file, revision string, doc any) (*Source, error) {
	return v.source(file, revision, doc, false)
}

// ReadSource decodes the bytes of a source file strictly (internal/strictjson, its default
// limits: an error names file:line:col) and reads the document as ValidateSource does, or, when
// known is set, as KnownSource does (bytes known to be a valid source at revision: a built-in
// source validated when the binary was built). It returns the document and the source.
func (v *Validator) ReadSource(file, revision string, data []byte, known bool) (any, *Source, error) {
	doc, err := strictjson.Decode(file, data, strictjson.DefaultLimits)
	if err != nil {
		return nil, nil, err
	}
	s, err := v.source(file, revision, doc, !known)
	if err != nil {
		return nil, nil, err
	}
	return doc, s, nil
}

// source is ValidateSource, validating against the revision's schemas when validate is set.
func (v *Validator) source(file, revision string, doc any, validate bool) (*Source, error) {
	return v.sourceAt(place{file: file}, revision, doc, validate)
}

// place is where a source document lies: a file, or the member of a JSONL record at line of file
// whose JSON pointer is prefix ("/carrier").
type place struct {
	file   string
	line   int
	prefix string
}

// SourceCarrier is the carrier schema of a lane stage whose carrier is the source itself, read
// back (the control lane direct's, contracts/lanes.cue). The file exists, for validators outside
// contractcheck, and accepts a source of any pinned revision; contractcheck validates such a
// carrier as the source of its record's fixture, at that fixture's revision, whatever the
// revision is (ValidateSourceCarrier).
const SourceCarrier = "carriers/mcp-source.schema.json"

// ValidateSourceCarrier validates the carrier of a record at line of file as a source of
// revision (ValidateSource): a bare result, or a JSON-RPC response envelope, against that
// revision's schema. Pointers in the error are prefixed with /carrier, and its message names the
// schema file and definition the carrier was held to.
func (v *Validator) ValidateSourceCarrier(file string, line int, revision string, carrier any) error {
	if revision == "" {
		revision = DefaultRevision
	}
	_, err := v.sourceAt(place{file: file, line: line, prefix: "/carrier"}, revision, carrier, true)
	var ve *ValidationError
	if errors.As(err, &ve) && ve.File == file {
		r := v.revisions[revision]
		d, _ := v.definitions(r) // compiled: they resolve
		def := d.result
		obj, _ := carrier.(map[string]any)
		if _, envelope := obj["jsonrpc"]; envelope {
			def = d.resultResponse + " (or " + d.errorResponse + "), its result " + d.result
		}
		ve.Msg += fmt.Sprintf(" (the carrier is the source read back: held to %s%s, the schema of revision %s, the fixture's)", r.info.File, def, revision)
	}
	return err
}

// sourceAt is source for a document at p.
func (v *Validator) sourceAt(p place, revision string, doc any, validate bool) (*Source, error) {
	file := p.file
	if revision == "" {
		revision = DefaultRevision
	}
	r, ok := v.revisions[revision]
	if !ok {
		return nil, fmt.Errorf("%s: %w", file, v.UnknownRevision(revision))
	}
	if validate {
		if _, err := v.load(revision); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	check := func(s *jsonschema.Schema, x any, prefix string) error {
		if !validate {
			return nil
		}
		if err := s.Validate(x); err != nil {
			if c := refCycle(err); c != nil {
				return v.cycleError(c, file)
			}
			return convert(err, file, p.line, p.prefix+prefix, nil)
		}
		return nil
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &ValidationError{File: file, Line: p.line, Pointer: p.prefix, Msg: fmt.Sprintf("got %s, want object", strictjson.TypeName(doc))}
	}
	if _, ok := obj["jsonrpc"]; !ok {
		if err := check(r.callToolResult, obj, ""); err != nil {
			return nil, err
		}
		return &Source{Revision: revision, Result: obj}, nil
	}

	_, hasError := obj["error"]
	_, hasResult := obj["result"]
	if hasError && hasResult {
		// JSON-RPC 2.0 §5: exactly one of result and error. The MCP schemas
		// do not say so (their response objects allow additional members),
		// but a response that is both cannot be read one way only.
		return nil, &ValidationError{File: file, Line: p.line, Pointer: p.prefix, Msg: "a JSON-RPC response holds both \"result\" and \"error\""}
	}
	if hasError {
		if err := check(r.errorResponse, obj, ""); err != nil {
			return nil, err
		}
		rpcErr, _ := obj["error"].(map[string]any) // an object: the schema says so
		return &Source{Revision: revision, RPCError: rpcErr, Envelope: true}, nil
	}
	if err := check(r.resultResponse, obj, ""); err != nil {
		return nil, err
	}
	result, _ := obj["result"].(map[string]any) // an object: the schema says so
	if err := check(r.callToolResult, result, "/result"); err != nil {
		return nil, err
	}
	return &Source{Revision: revision, Result: result, Envelope: true}, nil
}

// recordFalseMessages explains the record schema's "else": {"properties":
// {"x": false}} branches, which the library reports only as "false schema".
var recordFalseMessages = map[string]string{
	"/carrier": `not allowed: a carrier is present only when state is "captured"`,
	"/error":   `not allowed: an error is present only when state is "execution_failed"`,
	"/basis":   `not allowed: a basis is present only when origin is "reconstructed"`,
}

// ValidateRecord validates one decoded observation record; line is its
// 1-based line in a JSONL file (0 when not from a JSONL file). A violation
// is a *ValidationError.
func (v *Validator) ValidateRecord(file string, line int, doc any) error {
	if recordConforms(doc) {
		return nil // the schema, checked in Go; the schema itself names what is wrong otherwise
	}
	s, err := v.record.get(v, RecordSchemaPath)
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return convert(err, file, line, "", recordFalseMessages)
	}
	return nil
}

// CarrierSchemaDir is where carrier schemas live inside the schemas directory: framework carriers
// and provider request bodies, one file each.
const CarrierSchemaDir = "carriers/"

// ValidateCarrier validates a captured carrier against a carrier schema (a path inside the schemas
// directory, e.g. "carriers/gemini-function-response.schema.json"). Pointers in the error are
// prefixed with /carrier, so they point into the record on the given line.
func (v *Validator) ValidateCarrier(schemaPath, file string, line int, carrier any) error {
	s, err := v.carrier(schemaPath)
	if err != nil {
		return err
	}
	if err := s.Validate(carrier); err != nil {
		return convert(err, file, line, "/carrier", nil)
	}
	return nil
}

// CompileCarrier compiles a carrier schema ahead of use, so a missing or broken one is reported
// before any record is read.
func (v *Validator) CompileCarrier(schemaPath string) error {
	_, err := v.carrier(schemaPath)
	return err
}

// carrier returns a carrier schema, compiled on first use: once, however many goroutines ask for
// it at the same time (a worker that needs a schema another goroutine is compiling waits for it).
func (v *Validator) carrier(schemaPath string) (*jsonschema.Schema, error) {
	return lazyIn(&v.carriers, schemaPath).get(v, schemaPath)
}

// ValidateReport validates a decoded JSON report. A violation is a
// *ValidationError with an empty File.
func (v *Validator) ValidateReport(doc any) error {
	return v.report.validate(v, ReportSchemaPath, "", doc)
}

// refCycle is the reference cycle a validation error's tree holds, if any: a fault of the schema
// (a "$ref" that names itself through other references without reading the value), not of the
// document validated.
func refCycle(err error) *kind.RefCycle {
	ve, ok := errorsAs(err)
	if !ok {
		return nil
	}
	var find func(e *jsonschema.ValidationError) *kind.RefCycle
	find = func(e *jsonschema.ValidationError) *kind.RefCycle {
		if c, ok := e.ErrorKind.(*kind.RefCycle); ok {
			return c
		}
		for _, x := range e.Causes {
			if c := find(x); c != nil {
				return c
			}
		}
		return nil
	}
	return find(ve)
}

// cycleError says a schema's references form a cycle: the schema file (as messages name it) and
// the JSON pointer of the definition, then the source it was met validating.
func (v *Validator) cycleError(c *kind.RefCycle, file string) error {
	u, frag, _ := strings.Cut(c.URL, "#")
	at := u
	if p, err := schemaPath(u); err == nil {
		at = v.docs.displayName(p)
	}
	path := c.KeywordLocation1
	if path == "" {
		path = c.KeywordLocation2
	}
	return &ValidationError{File: at, Pointer: frag, Msg: fmt.Sprintf("the schema's references form a cycle (following %s comes back here without reading a value): a fault of the schema, met validating %s", path, file)}
}

// errorsAs is errors.As for the library's error type.
func errorsAs(err error) (*jsonschema.ValidationError, bool) {
	var ve *jsonschema.ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}
