// Package record writes observation records (one JSON object per line, SPEC §7) for capture
// programs, and lists the fixtures they serve. It has no dependencies, so every lane module can
// use it whatever its framework pins.
package record

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Fixture is one source result as served: its id, file and exact bytes.
type Fixture struct {
	ID     string
	Path   string
	Bytes  []byte
	Sha256 string
}

// Fixtures lists dir/<suite>/<id>.json sorted by id.
func Fixtures(dir string) ([]Fixture, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Fixture
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		out = append(out, Fixture{ID: strings.TrimSuffix(filepath.Base(p), ".json"), Path: p, Bytes: b, Sha256: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) == 0 {
		return nil, fmt.Errorf("no fixtures under %s", dir)
	}
	return out, nil
}

// Basis cites the framework source a reconstructed carrier follows.
type Basis struct {
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Function string `json:"function"`
	Version  string `json:"version"`
}

// Record is one observation record, fields in the order SPEC §7 shows them.
type Record struct {
	Fixture       string          `json:"fixture"`
	Lane          string          `json:"lane"`
	LaneVersion   string          `json:"laneVersion"`
	Configuration string          `json:"configuration"`
	Stage         string          `json:"stage"`
	Repetition    int             `json:"repetition"`
	State         string          `json:"state"`
	Carrier       json.RawMessage `json:"carrier,omitempty"`
	Error         string          `json:"error,omitempty"`
	SourceSha256  string          `json:"sourceSha256"`
	Origin        string          `json:"origin"`
	Basis         []Basis         `json:"basis,omitempty"`
	Notes         string          `json:"notes,omitempty"`
}

// Writer writes the records of one lane, version, configuration and repetition.
type Writer struct {
	W             io.Writer
	Lane          string
	LaneVersion   string
	Configuration string
	Repetition    int
	Origin        string // "captured" when empty
}

func (w *Writer) write(f Fixture, stage, state string, carrier json.RawMessage, errMsg string) error {
	return w.writeBasis(f, stage, state, carrier, errMsg, nil)
}

func (w *Writer) writeBasis(f Fixture, stage, state string, carrier json.RawMessage, errMsg string, basis []Basis) error {
	origin := w.Origin
	if origin == "" {
		origin = "captured"
	}
	b, err := json.Marshal(Record{
		Fixture: f.ID, Lane: w.Lane, LaneVersion: w.LaneVersion, Configuration: w.Configuration,
		Stage: stage, Repetition: w.Repetition, State: state, Carrier: carrier, Error: errMsg,
		SourceSha256: f.Sha256, Origin: origin, Basis: basis,
	})
	if err != nil {
		return fmt.Errorf("record %s %s: %w", f.ID, stage, err)
	}
	_, err = w.W.Write(append(b, '\n'))
	return err
}

// Captured writes a captured carrier: raw JSON bytes as observed, or a Go value marshalled with
// encoding/json (how it would be sent on).
func (w *Writer) Captured(f Fixture, stage string, carrier any) error {
	raw, ok := carrier.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(carrier)
		if err != nil {
			return fmt.Errorf("record %s %s: carrier: %w", f.ID, stage, err)
		}
		raw = b
	}
	return w.write(f, stage, "captured", raw, "")
}

// Failed writes an execution failure with its message.
func (w *Writer) Failed(f Fixture, stage string, err error) error {
	msg := "execution failed"
	if err != nil && err.Error() != "" {
		msg = err.Error()
	}
	return w.write(f, stage, "execution_failed", nil, msg)
}

// NotReached writes a stage after a failure.
func (w *Writer) NotReached(f Fixture, stage string) error {
	return w.write(f, stage, "not_reached", nil, "")
}

// NotApplicable writes a stage that has no meaning for the lane.
func (w *Writer) NotApplicable(f Fixture, stage string) error {
	return w.write(f, stage, "not_applicable", nil, "")
}

// NotObservable writes a stage with no public seam.
func (w *Writer) NotObservable(f Fixture, stage string) error {
	return w.write(f, stage, "not_observable", nil, "")
}

// Stage is one observed stage of a run: its carrier (nil when the run did not reach it) and why
// there is none.
type Stage struct {
	Stage   string
	Carrier json.RawMessage
	Missing string
}

// Stages writes the observed stages in order, as the Python and JavaScript harnesses' writers do:
// a stage with a carrier is captured; the first one without is execution_failed, its message
// the stage's Missing reason and the run's error joined by ": " (either alone when the other is
// empty); every later stage is not_reached. No retries.
func (w *Writer) Stages(f Fixture, stages []Stage, runErr error) error {
	failed := false
	for _, s := range stages {
		var err error
		switch {
		case failed:
			err = w.NotReached(f, s.Stage)
		case s.Carrier != nil:
			err = w.Captured(f, s.Stage, s.Carrier)
		default:
			failed = true
			msg := s.Missing
			if runErr != nil {
				if msg != "" {
					msg += ": "
				}
				msg += runErr.Error()
			}
			err = w.Failed(f, s.Stage, errors.New(msg))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Reconstructed writes a record of a reconstructed lane: any state, with the rules' basis. A
// carrier is written only for state "captured" and an error only for "execution_failed".
func (w *Writer) Reconstructed(f Fixture, stage, state string, carrier any, errMsg string, basis []Basis) error {
	var raw json.RawMessage
	if state == "captured" {
		b, err := json.Marshal(carrier)
		if err != nil {
			return fmt.Errorf("record %s %s: carrier: %w", f.ID, stage, err)
		}
		raw = b
	}
	if state == "execution_failed" && errMsg == "" {
		errMsg = "execution failed"
	}
	return w.writeBasis(f, stage, state, raw, errMsg, basis)
}
