package censusdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// A census line is read member by member (strictjson.Cursor) into typed fields, not decoded into
// a map of its members and a map of its reading's: building those maps was most of the JSON
// decoding's cost, and the JSON decoding a third of a merge's CPU (docs/production.md, "Censuses
// that merge"). The reading's readout and diagnostics are trees, as Decode gives them; a
// visibility or decisionError line is decoded whole and read from its map, as before (there are
// few of them). The line is read as strictly as Decode reads it — the same syntax errors, a key
// written twice refused, numbers kept as written — and what it holds is checked as before, each
// error naming the file, the line and the JSON pointer. Unlike a line decoded whole first, a
// member that is not a census line's is refused when it is read, before a syntax error further
// on the line.

// The members of a reading's line, in the order they are checked.
const (
	fFixture = iota
	fLane
	fVersion
	fConfiguration
	fStage
	fTask
	fRepetition
	fOrigin
	fOutcome
	fError
	fFile
	fLine
	fReadout
	fDiagnostics
	fFingerprint
	nReadingFields
)

// readingFields are the members of a reading's object, by index.
var readingFields = [nReadingFields]string{"fixture", "lane", "version", "configuration", "stage", "task", "repetition", "origin",
	"outcome", "error", "file", "line", "readout", "diagnostics", "fingerprint"}

// readingField is the index of a member of a reading's object, -1 for a key a reading does not
// have (a switch: a map lookup per member cost more).
func readingField(k string) int {
	switch k {
	case "fixture":
		return fFixture
	case "lane":
		return fLane
	case "version":
		return fVersion
	case "configuration":
		return fConfiguration
	case "stage":
		return fStage
	case "task":
		return fTask
	case "repetition":
		return fRepetition
	case "origin":
		return fOrigin
	case "outcome":
		return fOutcome
	case "error":
		return fError
	case "file":
		return fFile
	case "line":
		return fLine
	case "readout":
		return fReadout
	case "diagnostics":
		return fDiagnostics
	case "fingerprint":
		return fFingerprint
	}
	return -1
}

// member is one member of a reading's object as read: a string or a number as written, or any
// other value (the readout, the diagnostics, or a value of the wrong kind) as a tree.
type member struct {
	present bool
	kind    string // strictjson.TypeName of the value
	s       string
	n       json.Number
	v       any
}

// typeName names what the member holds for a message: "null" when it is missing, as a map's
// missing member was named.
func (m *member) typeName() string {
	if !m.present {
		return "null"
	}
	return m.kind
}

// readingMembers are a reading object's members, by index (readingFields).
type readingMembers [nReadingFields]member

// read reads the reading's object at the cursor, refusing a member a reading does not have.
func (rm *readingMembers) read(c *strictjson.Cursor, o object) error {
	return c.Object(func(k string) error {
		i := readingField(k)
		if i < 0 {
			return o.errorf("/reading/"+strictjson.EscapeToken(k), "not a field of a census line (fields: %v)", readingFields[:])
		}
		m := &rm[i]
		m.present, m.kind = true, c.Kind()
		var err error
		switch m.kind {
		case "string":
			m.s, err = c.String()
		case "number":
			m.n, err = c.Number()
		default:
			m.v, err = c.Value()
		}
		return err
	})
}

// str is the string member i; a missing one is "" when optional.
func (rm *readingMembers) str(o object, i int, optional bool) (string, error) {
	m := &rm[i]
	if !m.present && optional {
		return "", nil
	}
	if m.kind != "string" {
		return "", o.errorf("/reading/"+readingFields[i], "want a string, got %s", m.typeName())
	}
	return m.s, nil
}

// int is the whole-number member i.
func (rm *readingMembers) int(o object, i int) (int, error) {
	m := &rm[i]
	if m.kind != "number" || !m.present {
		return 0, o.errorf("/reading/"+readingFields[i], "want a whole number, got %s", m.typeName())
	}
	n, err := strconv.Atoi(string(m.n))
	if err != nil || n < 0 {
		return 0, o.errorf("/reading/"+readingFields[i], "want a whole number, got %s", m.n)
	}
	return n, nil
}

// reading is the reading the members say, checked.
func (rm *readingMembers) reading(o object) (result.Reading, error) {
	var r result.Reading
	var err error
	for _, f := range [...]struct {
		i        int
		to       *string
		optional bool
	}{
		{fFixture, &r.Fixture, false}, {fLane, &r.Lane, false}, {fVersion, &r.LaneVersion, false},
		{fConfiguration, &r.Configuration, false}, {fStage, &r.Stage, false}, {fTask, &r.Task, false},
		{fOrigin, &r.Origin, false}, {fOutcome, &r.Outcome, false}, {fError, &r.Error, true}, {fFile, &r.File, false},
	} {
		if *f.to, err = rm.str(o, f.i, f.optional); err != nil {
			return r, err
		}
	}
	if r.Repetition, err = rm.int(o, fRepetition); err != nil {
		return r, err
	}
	if r.Line, err = rm.int(o, fLine); err != nil {
		return r, err
	}
	if !slices.Contains(readingOutcomes, r.Outcome) {
		return r, o.errorf("/reading/outcome", "not an outcome: %q", r.Outcome)
	}
	if m := &rm[fFingerprint]; m.present {
		if m.kind != "string" {
			return r, o.errorf("/reading/fingerprint", "want a string, got %s", m.kind)
		}
		s := m.s
		if len(s) != 2*sha256.Size || strings.ToLower(s) != s {
			return r, o.errorf("/reading/fingerprint", "want %d lower-case hexadecimal digits (the reading's SHA-256), got %q", 2*sha256.Size, s)
		}
		if _, err := hex.Decode(r.Fingerprint[:], []byte(s)); err != nil {
			return r, o.errorf("/reading/fingerprint", "want %d lower-case hexadecimal digits (the reading's SHA-256), got %q", 2*sha256.Size, s)
		}
	}
	if m := &rm[fReadout]; m.present {
		var ok bool
		if r.Readout, ok = m.v.(map[string]any); !ok {
			return r, o.errorf("/reading/readout", "want an object, got %s", m.kind)
		}
	}
	if m := &rm[fDiagnostics]; m.present {
		list, ok := m.v.([]any)
		if !ok {
			return r, o.errorf("/reading/diagnostics", "want an array, got %s", m.kind)
		}
		r.Diagnostics = make([]result.Diagnostic, len(list))
		for i, d := range list {
			if r.Diagnostics[i], ok = d.(map[string]any); !ok {
				return r, o.errorf(fmt.Sprintf("/reading/diagnostics/%d", i), "want an object, got %s", strictjson.TypeName(d))
			}
		}
	}
	return r, nil
}

// decodeBatch decodes lines until one fails.
// A decisionError line is taken only in a part of a census of decision logs whose reader takes
// them (errs).
func decodeBatch(dec *strictjson.LineDecoder, file string, lines []strictjson.Line, errs bool) ([]item, error) {
	allowed := lineFields[:2]
	if errs {
		allowed = lineFields
	}
	out := make([]item, 0, len(lines))
	for _, l := range lines {
		it, err := decodeLine(dec, file, l, allowed)
		if err != nil {
			return out, err
		}
		out = append(out, it)
	}
	return out, nil
}

// decodeLine reads one census line holding one of the allowed members.
func decodeLine(dec *strictjson.LineDecoder, file string, l strictjson.Line, allowed []string) (item, error) {
	c := dec.Cursor(l)
	o := object{file: file, line: l.Number}
	if c.Kind() != "object" {
		v, err := c.Value()
		if err == nil {
			err = c.End()
		}
		if err != nil {
			return item{}, err
		}
		return item{}, o.errorf("", "want an object, got %s", strictjson.TypeName(v))
	}
	var rm readingMembers
	var key string // the member the line holds (the last, when it holds several)
	var val any    // its value, unless it is a reading's object (rm)
	isReading, members := false, 0
	err := c.Object(func(k string) error {
		if !slices.Contains(allowed, k) {
			return o.errorf("/"+strictjson.EscapeToken(k), "not a field of a census line (fields: %v)", allowed)
		}
		members++
		key, val = k, nil
		if isReading = k == "reading" && c.Kind() == "object"; isReading {
			rm = readingMembers{}
			return rm.read(c, o)
		}
		var err error
		val, err = c.Value()
		return err
	})
	if err == nil {
		err = c.End()
	}
	if err != nil {
		return item{}, err
	}
	if members != 1 {
		return item{}, o.errorf("", "a census line holds one of %s", strings.Join(allowed, ", "))
	}
	switch key {
	case "decisionError":
		de, err := o.fieldsOf("/decisionError", val, decisionErrorFields)
		if err != nil {
			return item{}, err
		}
		var e result.DecisionError
		for _, f := range []struct {
			key string
			to  *string
		}{{"at", &e.At}, {"decision", &e.Decision}, {"error", &e.Error}} {
			if *f.to, err = o.str(de, "/decisionError", f.key, false); err != nil {
				return item{}, err
			}
		}
		return item{derr: &e}, nil
	case "reading":
		if !isReading {
			return item{}, o.errorf("/reading", "want an object, got %s", strictjson.TypeName(val))
		}
		r, err := rm.reading(o)
		if err != nil {
			return item{}, err
		}
		if r.Fingerprint == ([sha256.Size]byte{}) { // a census written before lines held it
			if r.Fingerprint, err = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics); err != nil {
				return item{}, o.errorf("/reading", "%v", err)
			}
		}
		return item{reading: r}, nil
	}
	vr, err := o.visibility(val)
	if err != nil {
		return item{}, err
	}
	return item{vis: vr}, nil
}
