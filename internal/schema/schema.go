// Package schema validates JSON documents against the project's pinned JSON
// Schemas. It is step 2 of the pipeline
//
//	strictjson → schema → contract → project → policy → census → report
//
// It takes the exact trees that package strictjson decodes (map[string]any,
// []any, string, bool, nil, json.Number) and checks
//
//   - sources (W0 tool results) against the pinned MCP schema of a protocol
//     revision: a bare CallToolResult, or a JSON-RPC response envelope;
//   - observation records (one JSONL line each) against
//     schemas/contractcheck/observation-record.schema.json;
//   - JSON reports against schemas/contractcheck/report.schema.json.
//
// All schemas are read from one fs.FS rooted at the schemas/ directory and
// compiled once by New; nothing is fetched over the network or read from the
// host file system. Formats are asserted, not merely annotated (see New).
package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// DefaultRevision is the MCP protocol revision pinned by the project.
const DefaultRevision = "2025-11-25"

// Revisions lists the MCP protocol revisions whose schema ships under
// schemas/mcp/<revision>/schema.json, oldest first.
var Revisions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

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

// defs describes where one revision keeps the definitions we validate
// against.
type defs struct {
	prefix         string // "#/definitions/" (draft-07) or "#/$defs/" (2020-12)
	errorResponse  string // a JSON-RPC error response
	resultResponse string // a JSON-RPC (non-error) response
}

var revisionDefs = map[string]defs{
	"2025-06-18": {"#/definitions/", "JSONRPCError", "JSONRPCResponse"},
	"2025-11-25": {"#/$defs/", "JSONRPCErrorResponse", "JSONRPCResultResponse"},
	"2026-07-28": {"#/$defs/", "JSONRPCErrorResponse", "JSONRPCResultResponse"},
}

// revision holds one revision's compiled definitions, compiled on first use.
type revision struct {
	name string
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
	record    lazySchema // compiled when a record fails the check in Go (recordConforms)
	report    lazySchema
	compare   lazySchema
	lock      lazySchema
	carriers  sync.Map // schema path → *lazySchema
	providers sync.Map // schema path → *lazySchema
}

// New checks that the MCP schema of every revision in Revisions is present.
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
func New(fsys fs.FS) (*Validator, error) {
	v := &Validator{docs: &docCache{fsys: fsys}, revisions: make(map[string]*revision, len(Revisions))}
	for _, rev := range Revisions {
		if _, err := fs.Stat(fsys, MCPSchemaPath(rev)); err != nil {
			return nil, fmt.Errorf("schema: MCP revision %s: %w", rev, err)
		}
		v.revisions[rev] = &revision{name: rev}
	}
	return v, nil
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
		return nil, fmt.Errorf("unknown MCP schema revision %q (known: %s)", rev, strings.Join(Revisions, ", "))
	}
	r.once.Do(func() {
		d := revisionDefs[rev]
		path := MCPSchemaPath(rev)
		var s []*jsonschema.Schema
		if s, r.err = v.compile(path+d.prefix+"CallToolResult", path+d.prefix+d.errorResponse, path+d.prefix+d.resultResponse); r.err == nil {
			r.callToolResult, r.errorResponse, r.resultResponse = s[0], s[1], s[2]
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

// source is ValidateSource, validating against the revision's schemas when validate is set.
func (v *Validator) source(file, revision string, doc any, validate bool) (*Source, error) {
	if revision == "" {
		revision = DefaultRevision
	}
	r, ok := v.revisions[revision]
	if !ok {
		return nil, fmt.Errorf("%s: unknown MCP schema revision %q (known: %s)", file, revision, strings.Join(Revisions, ", "))
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
			return convert(err, file, 0, prefix, nil)
		}
		return nil
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &ValidationError{File: file, Msg: fmt.Sprintf("got %s, want object", strictjson.TypeName(doc))}
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
		return nil, &ValidationError{File: file, Msg: "a JSON-RPC response holds both \"result\" and \"error\""}
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
	s, err := v.report.get(v, ReportSchemaPath)
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return convert(err, "", 0, "", nil)
	}
	return nil
}

// errorsAs is errors.As for the library's error type.
func errorsAs(err error) (*jsonschema.ValidationError, bool) {
	var ve *jsonschema.ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}
