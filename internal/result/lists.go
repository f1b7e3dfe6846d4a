package result

import (
	"bytes"
	"encoding/json"
	"iter"
)

// Indexed is a list read by index: Len items, each made by At (0 ≤ i < Len). A report's
// Results, Localizations and an upgrade's Changes are Indexed, so that a census can make each item
// when it is read rather than hold them all; List is the plain form, held as values.
type Indexed[T any] interface {
	Len() int
	At(i int) T
}

// List is an Indexed list held as values.
type List[T any] []T

// Len implements Indexed.
func (l List[T]) Len() int { return len(l) }

// At implements Indexed.
func (l List[T]) At(i int) T { return l[i] }

// count is l's length; a nil list is empty.
func count[T any](l Indexed[T]) int {
	if l == nil {
		return 0
	}
	return l.Len()
}

// Collect is l held as values: its items in order, made once each; empty but not nil when l is
// empty or nil, so that it encodes as a JSON array, never null. It is the form an Indexed list is
// written in (MarshalJSON) and handed to a reader that keeps it.
func Collect[T any](l Indexed[T]) List[T] {
	out := make(List[T], count(l))
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// all walks l in order; a nil list is empty.
func all[T any](l Indexed[T]) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i := range count(l) {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Results are a report's bindings, in report order. A census of a million bindings does not hold
// them as Result values: each is made when it is read (At), from the census's compact form, so a
// report's memory does not grow with its bindings. At must be safe for concurrent use: the JSON
// format makes and encodes results on several goroutines. ResultList is the plain form.
type Results = Indexed[Result]

// ResultList is Results held as values.
type ResultList = List[Result]

// Changes are an upgrade's changed bindings, in report order; like Results, they may be made
// when read, and At must be safe for concurrent use as Results' is. ChangeList is the plain form.
type Changes = Indexed[Change]

// ChangeList is Changes held as values.
type ChangeList = List[Change]

// Localizations are a report's localizations, in report order. A census of a million bindings
// has a hundred thousand of them, and holds each as the bindings it bounds (a few bytes) rather
// than as a Localization value of eight strings (128 bytes): each is made when it is read (At),
// which must be safe for concurrent use as Results' is. LocalizationList is the plain form.
type Localizations = Indexed[Localization]

// LocalizationList is Localizations held as values.
type LocalizationList = List[Localization]

// Visibilities are a report's visibility readout, a group per lane, version, configuration and
// stage, in report order. A run of ten million bindings has some 50,000 groups of a few fixtures
// each; the collector that judged them keeps each group as a few ids, and each Visibility, with its
// fixtures and their records (file:line), is made when it is read (At), so that the report does
// not hold them all. At must be safe for concurrent use as Results' is, and gives a fresh value the
// caller may keep (its Channels maps are shared: read them, do not change them). VisibilityList is
// the plain form.
type Visibilities = Indexed[Visibility]

// VisibilityList is Visibilities held as values.
type VisibilityList = List[Visibility]

// VisibilityGroups is how many groups the report's visibility readout has.
func (r *Report) VisibilityGroups() int { return count(r.Visibility) }

// EachVisibility walks the report's visibility readout in order.
func (r *Report) EachVisibility() iter.Seq2[int, Visibility] { return all(r.Visibility) }

// VisibilityReadout is the report's visibility readout held as values (nil when it has none): for
// a reader of a small report (a probe's lane), which a census of a million bindings is not.
func (r *Report) VisibilityReadout() VisibilityList {
	if r.VisibilityGroups() == 0 {
		return nil
	}
	return Collect(r.Visibility)
}

// Localized is how many localizations the report has.
func (r *Report) Localized() int { return count(r.Localizations) }

// EachLocalization walks the report's localizations in order.
func (r *Report) EachLocalization() iter.Seq2[int, Localization] { return all(r.Localizations) }

// Each walks the report's results in order; each is a fresh value the caller may keep.
func (r *Report) Each() iter.Seq2[int, *Result] {
	return func(yield func(int, *Result) bool) {
		if r.Results == nil {
			return
		}
		for i := range r.Results.Len() {
			res := r.Results.At(i)
			if !yield(i, &res) {
				return
			}
		}
	}
}

// HeadResults are Results that can also make a result without its readout and diagnostics, nor
// its variants' (HeadAt), which a census keeps encoded: a reader of positions, outcomes and
// records (a findings table) then does not decode them. HeadAt must be safe for concurrent use
// as At is.
type HeadResults interface {
	Results
	HeadAt(i int) Result
}

// Heads walks the report's results in order as Each does, each without its readout and
// diagnostics, nor its variants' (they are nil whatever Results holds): for a reader of
// positions, outcomes and records.
func (r *Report) Heads() iter.Seq2[int, *Result] {
	return func(yield func(int, *Result) bool) {
		if r.Results == nil {
			return
		}
		heads, _ := r.Results.(HeadResults)
		for i := range r.Results.Len() {
			var res Result
			if heads != nil {
				res = heads.HeadAt(i)
			} else {
				res = r.Results.At(i)
				res.Readout, res.Diagnostics = nil, nil
				if res.Variants != nil {
					vs := make([]Variant, len(res.Variants))
					for j, v := range res.Variants {
						v.Readout, v.Diagnostics = nil, nil
						vs[j] = v
					}
					res.Variants = vs
				}
			}
			if !yield(i, &res) {
				return
			}
		}
	}
}

// Len is how many results the report has.
func (r *Report) Len() int { return count(r.Results) }

// Each walks the upgrade's changes in order.
func (u Upgrade) Each() iter.Seq2[int, Change] { return all(u.Changes) }

// Count is how many changes the upgrade has.
func (u Upgrade) Count() int { return count(u.Changes) }

// MarshalJSON writes the upgrade with its changes as an array, however they are held.
func (u Upgrade) MarshalJSON() ([]byte, error) {
	type plain struct {
		Lane          string   `json:"lane"`
		Configuration string   `json:"configuration"`
		From          string   `json:"from"`
		To            string   `json:"to"`
		Changes       []Change `json:"changes"`
	}
	return json.Marshal(plain{u.Lane, u.Configuration, u.From, u.To, Collect(u.Changes)})
}

// UnmarshalJSON reads a JSON report (reportVersion Version): its results, localizations, upgrade
// changes and visibility readout become lists held as values (localizations null stay nil, a
// readout absent or empty is nil).
func (r *Report) UnmarshalJSON(data []byte) error {
	type plain Report
	var aux struct {
		*plain
		Results       ResultList       `json:"results"`
		Localizations LocalizationList `json:"localizations"`
		Upgrades      []Upgrade        `json:"upgrades"`
		Visibility    VisibilityList   `json:"visibility"`
	}
	aux.plain = (*plain)(r)
	if err := decodeNumbers(data, &aux); err != nil {
		return err
	}
	r.Results = aux.Results
	if aux.Localizations != nil {
		r.Localizations = aux.Localizations
	}
	r.Upgrades = aux.Upgrades
	if len(aux.Visibility) > 0 {
		r.Visibility = aux.Visibility
	}
	return nil
}

// UnmarshalJSON reads an upgrade with its changes as a list held as values.
func (u *Upgrade) UnmarshalJSON(data []byte) error {
	var aux struct {
		Lane          string     `json:"lane"`
		Configuration string     `json:"configuration"`
		From          string     `json:"from"`
		To            string     `json:"to"`
		Changes       ChangeList `json:"changes"`
	}
	if err := decodeNumbers(data, &aux); err != nil {
		return err
	}
	*u = Upgrade{Lane: aux.Lane, Configuration: aux.Configuration, From: aux.From, To: aux.To, Changes: aux.Changes}
	return nil
}

// decodeNumbers decodes JSON keeping every number's digits (json.Number), as the report holds them.
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
