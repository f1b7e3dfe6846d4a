package instrument

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// Record is one validated observation record: its envelope and its carrier.
type Record struct {
	result.Observation
	Carrier any
	// carrierBytes is the carrier as written in the record's line (inputs.RecordLine.Carrier),
	// nil when unknown: a carrier repeated byte for byte is validated and projected once.
	carrierBytes []byte
}

// Position is where the record observed its fixture: lane, version, configuration and stage.
func (r *Record) Position() result.Position { return r.Observation.Position }

// ReadRecords streams the records of files in order and passes on those within the run's scope,
// each validated before emit sees it; a record outside the scope is read as far as its envelope
// (readEnvelope). It stops at the first bad record or the first error emit returns.
func (in *Instrument) ReadRecords(ctx context.Context, files []inputs.RecordFile, emit func(*Record) error) error {
	for _, f := range files {
		var emitErr error
		err := in.readFile(ctx, f, func(r *Record) bool {
			emitErr = emit(r)
			return emitErr == nil
		})
		if err != nil {
			return err
		}
		if emitErr != nil {
			return emitErr
		}
	}
	return nil
}

// readFile streams one .jsonl file and hands on its records within the run's scope, each read
// (ReadRecord) before emit sees it; it stops at the first bad record or when emit returns false.
func (in *Instrument) readFile(ctx context.Context, rf inputs.RecordFile, emit func(*Record) bool) error {
	read := rf.Records
	if in.Narrowed() {
		read = rf.Envelopes // a record outside the scope is checked, its carrier not built
	}
	var bad error
	err := read(ctx, func(l inputs.RecordLine) bool {
		rec, err := in.ReadRecord(ctx, l)
		if err != nil {
			bad = err
			return false
		}
		return rec == nil || emit(rec)
	})
	if err != nil {
		return err
	}
	return bad
}

// ReadRecord reads the record of one decoded line of a record file (inputs.DecodeRecord, or
// inputs.DecodeEnvelope when the run is Narrowed): its envelope always, its carrier only when the
// record is within the run's scope (readEnvelope; built then, from a line read with
// DecodeEnvelope), and not once the run's context is done. A record outside the scope is a nil record and no error. The check pipeline's workers
// (internal/check/pipeline) and ReadRecords read records with it.
func (in *Instrument) ReadRecord(ctx context.Context, l inputs.RecordLine) (*Record, error) {
	rec, err := in.readEnvelope(l.File, l.Line, l.Doc, l.Carrier)
	if err != nil {
		return nil, err
	}
	if !in.inScope(rec) {
		return nil, nil
	}
	if ctx.Err() != nil {
		// The run is stopped (over its memory budget, say: the watchdog cancels its context with
		// the *guard.LimitError): the carrier's validation cannot be cancelled once begun.
		return nil, fmt.Errorf("%s:%d: %w", l.File, l.Line, context.Cause(ctx))
	}
	if rec.carrierBytes != nil {
		if rec.Carrier, err = l.CarrierValue(); err != nil { // built now when the line was read unbuilt
			return nil, err
		}
	}
	if err := in.validateCarrier(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// ParseRecord validates one decoded record against the record schema, the contract model and the
// source it claims to observe.
func (in *Instrument) ParseRecord(file string, line int, doc any) (*Record, error) {
	return in.parseRecord(file, line, doc, nil)
}

// parseRecord is ParseRecord given the bytes of the record's carrier as written, if known: a
// carrier whose bytes were validated against the stage's schema already is not validated again.
func (in *Instrument) parseRecord(file string, line int, doc any, carrierBytes []byte) (*Record, error) {
	rec, err := in.readEnvelope(file, line, doc, carrierBytes)
	if err != nil {
		return nil, err
	}
	if err := in.validateCarrier(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// readEnvelope is parseRecord without the carrier's validation: the record schema, the position
// the contract model must know, the source's sha256, the state and the origin. A run restricted
// to a scope reads every record this far (a record it cannot place fails it) and validates the
// carriers of those within the scope only: the others are not read.
func (in *Instrument) readEnvelope(file string, line int, doc any, carrierBytes []byte) (*Record, error) {
	err := in.Validator.ValidateRecord(file, line, doc)
	if err != nil {
		return nil, err
	}
	m := doc.(map[string]any) // the schema guarantees an object with these members
	rec := &Record{
		Observation: result.Observation{
			File: file, Line: line,
			Position: result.Position{Fixture: m["fixture"].(string), Lane: m["lane"].(string), LaneVersion: m["laneVersion"].(string),
				Configuration: m["configuration"].(string), Stage: m["stage"].(string)},
			State: m["state"].(string), Origin: m["origin"].(string),
		},
		Carrier: m["carrier"], carrierBytes: carrierBytes,
	}
	if e, ok := m["error"].(string); ok {
		rec.Error = e
	}
	at := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	n, _ := m["repetition"].(json.Number) // an integer ≥ 1, by the schema
	if rec.Repetition, err = strconv.Atoi(n.String()); err != nil {
		return nil, at("/repetition: %s is not a repetition number", n)
	}
	lane, sd, err := in.Place(rec.Position(), m["sourceSha256"].(string))
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", file, line, err)
	}
	switch {
	case sd.Exposure == contract.Observed && (rec.State == contract.NotObservable || rec.State == contract.NotApplicable):
		return nil, at("/state: lane %s declares stage %s observed, but the record says %s", rec.Lane, rec.Stage, rec.State)
	case sd.Exposure != contract.Observed && rec.State != sd.Exposure:
		return nil, at("/state: lane %s declares stage %s %s, but the record says %s", rec.Lane, rec.Stage, sd.Exposure, rec.State)
	}
	if want := lane.OriginOf(rec.LaneVersion); want != rec.Origin {
		return nil, at("/origin: lane %s %s is %s, but the record says %s", rec.Lane, rec.LaneVersion, want, rec.Origin)
	}
	return rec, nil
}

// Place checks that the contract set knows a position: its fixture, whose source must have the
// sha256 sha (when sha is not empty), lane, version, configuration and stage. It returns the lane
// and its declaration of the stage. Observation records and OPA decisions are placed alike; the
// error leads with the JSON pointer of the member at fault ("/lane: unknown lane …"), for the
// caller to prefix with where the position was read.
func (in *Instrument) Place(pos result.Position, sha string) (contract.Lane, contract.StageDef, error) {
	fail := func(format string, args ...any) (contract.Lane, contract.StageDef, error) {
		return contract.Lane{}, contract.StageDef{}, fmt.Errorf(format, args...)
	}
	if _, ok := in.Model.Fixtures[pos.Fixture]; !ok {
		return fail("/fixture: unknown fixture %q (not in the catalog, and no --fixtures layer holds its source)", pos.Fixture)
	}
	if src := in.Sources[pos.Fixture]; sha != "" && sha != src.Sha256 {
		return fail("/sourceSha256: %s does not match fixture %s (%s has sha256 %s)", sha, pos.Fixture, src.File, src.Sha256)
	}
	lane, ok := in.Model.Lanes[pos.Lane]
	if !ok {
		return fail("/lane: unknown lane %q (the contracts define %v)", pos.Lane, contract.SortedKeys(in.Model.Lanes))
	}
	if !in.versions.declares(in.Model, pos.Lane, pos.LaneVersion) {
		return fail("/laneVersion: lane %s has no version %q (it declares %v)", pos.Lane, pos.LaneVersion, lane.Versions)
	}
	if _, ok := lane.Configurations[pos.Configuration]; !ok {
		return fail("/configuration: lane %s has no configuration %q (it declares %v)", pos.Lane, pos.Configuration, contract.SortedKeys(lane.Configurations))
	}
	sd, ok := lane.Stages[pos.Stage]
	if !ok {
		return fail("/stage: lane %s does not declare stage %q", pos.Lane, pos.Stage)
	}
	return lane, sd, nil
}

// validateCarrier validates a captured record's carrier against its lane stage's carrier schema
// (readEnvelope has checked the lane, the stage and the fixture exist). A carrier whose bytes were
// validated against that schema already is not validated again. The carrier schema
// schema.SourceCarrier (the control lane's) is the source's: the carrier is validated as a source
// of the record's fixture's revision, whatever that revision is, a built-in one or a layer's
// (schema.ValidateSourceCarrier); a carrier that is the fixture's source itself, byte for byte
// but for insignificant whitespace, was validated when the source was read. An error names the
// schema the carrier was held to.
func (in *Instrument) validateCarrier(rec *Record) error {
	if rec.State != "captured" {
		return nil
	}
	if err := in.readsOneWay(rec); err != nil {
		return err
	}
	path := in.Model.Lanes[rec.Lane].Stages[rec.Stage].Carrier
	if path == "" {
		return nil
	}
	key, revision := path, ""
	if path == schema.SourceCarrier {
		revision = in.Model.Fixtures[rec.Fixture].Revision
		key = path + "@" + revision // one carrier's bytes may be a source at one revision and not another
	}
	if _, valid := in.validCarriers.get(key, rec.carrierBytes); valid {
		return nil
	}
	var err error
	switch {
	case revision == "":
		if err = in.Validator.ValidateCarrier(path, rec.File, rec.Line, rec.Carrier); err != nil {
			var ve *schema.ValidationError
			if errors.As(err, &ve) {
				ve.Msg += " (carrier schema " + path + ", lanes." + rec.Lane + ".stages." + rec.Stage + ".carrier)"
			}
		}
	case !in.isSource(rec.Fixture, rec.carrierBytes):
		err = in.Validator.ValidateSourceCarrier(rec.File, rec.Line, revision, rec.Carrier)
	}
	if err != nil {
		return err
	}
	in.validCarriers.put(key, rec.carrierBytes, struct{}{})
	return nil
}

// isSource reports whether a carrier's bytes are the fixture's source's, but for insignificant
// whitespace (what examples/capture/direct and capture direct record: the source compacted).
func (in *Instrument) isSource(fixture string, carrier []byte) bool {
	src, ok := in.Sources[fixture]
	if !ok {
		return false
	}
	var a, b bytes.Buffer
	if json.Compact(&a, carrier) != nil || json.Compact(&b, src.Data) != nil {
		return false
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// readsOneWay reads a captured carrier through each compartment of its lane stage whose binding
// selects by value (bindpath): a selector that matches several elements of the carrier is an
// input error naming the record, the compartment and the path, never an outcome. A stage whose
// bindings are plain pointers costs nothing here.
func (in *Instrument) readsOneWay(rec *Record) error {
	if err := in.oneWay(rec.Fixture, rec.Lane, rec.Stage, rec.Carrier); err != nil {
		return fmt.Errorf("%s:%d: /carrier: %w", rec.File, rec.Line, err)
	}
	return nil
}

// oneWay reads a carrier through each compartment of a lane stage whose binding selects by value,
// and returns the first error: a selector that matches several elements.
func (in *Instrument) oneWay(fixture, lane, stage string, carrier any) error {
	if p, ok := in.asSource(fixture, lane, stage); ok {
		if p.Selects() {
			if _, err := p.Read(carrier); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range in.selecting[laneStage{lane, stage}] {
		if _, err := p.Read(carrier); err != nil {
			return err
		}
	}
	return nil
}
