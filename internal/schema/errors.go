package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ValidationError is a schema violation in an input document.
type ValidationError struct {
	File    string // the document's file; "" for a report
	Line    int    // 1-based line of a JSONL record; 0 otherwise
	Pointer string // JSON pointer (RFC 6901) of the offending value; "" is the whole document
	Msg     string // what is wrong there, then up to two further violations
}

// Error formats the error as "file:line: /pointer: msg" (JSONL records) or
// "file: /pointer: msg". The pointer is left out for the whole document, the
// file when empty.
func (e *ValidationError) Error() string {
	var sb strings.Builder
	if e.File != "" {
		sb.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&sb, ":%d", e.Line)
		}
		sb.WriteString(": ")
	}
	if e.Pointer != "" {
		sb.WriteString(e.Pointer)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// maxListed is how many violations one ValidationError lists.
const maxListed = 3

// leaf is one elementary violation.
type leaf struct {
	ptr   string
	depth int
	msg   string
}

// convert turns the library's error tree into a ValidationError. The tree
// is flattened to its leaves (after pruning the union alternatives that were
// clearly not meant, see collect); the deepest instance location wins, ties
// broken by pointer and then message, so the choice does not depend on the
// library's (map-ordered) traversal. falseMsgs explains "false" subschemas
// by pointer.
func convert(err error, file string, line int, prefix string, falseMsgs map[string]string) error {
	ve, ok := errorsAs(err)
	if !ok {
		if file != "" {
			return fmt.Errorf("%s: %w", file, err)
		}
		return err
	}
	leaves := collect(ve, nil, prefix, falseMsgs)
	if len(leaves) == 0 { // cannot happen: a failed validation has a cause
		return &ValidationError{File: file, Line: line, Pointer: prefix, Msg: "invalid"}
	}
	sort.Slice(leaves, func(i, j int) bool {
		a, b := leaves[i], leaves[j]
		if a.depth != b.depth {
			return a.depth > b.depth
		}
		if a.ptr != b.ptr {
			return a.ptr < b.ptr
		}
		return a.msg < b.msg
	})
	// Drop duplicates (several alternatives often fail the same way).
	uniq := leaves[:1]
	for _, l := range leaves[1:] {
		if last := uniq[len(uniq)-1]; l.ptr != last.ptr || l.msg != last.msg {
			uniq = append(uniq, l)
		}
	}
	msg := uniq[0].msg
	if len(uniq) > 1 {
		var sb strings.Builder
		sb.WriteString(msg)
		for i, l := range uniq[1:] {
			if i+1 >= maxListed {
				fmt.Fprintf(&sb, " (and %d more)", len(uniq)-maxListed)
				break
			}
			sb.WriteString("; also ")
			if l.ptr != "" {
				sb.WriteString(l.ptr)
			} else {
				sb.WriteString("(document)")
			}
			sb.WriteString(": ")
			sb.WriteString(l.msg)
		}
		msg = sb.String()
	}
	return &ValidationError{File: file, Line: line, Pointer: uniq[0].ptr, Msg: msg}
}

// collect appends the leaves of e's error tree. For anyOf and oneOf it
// keeps only the alternatives whose discriminator matched: an alternative
// that fails a "const" on a property of the value itself (MCP unions are
// tagged by "type": "text", "image", ...) was not the one meant, and its
// errors would only mislead. If every alternative fails that way, all are
// kept.
func collect(e *jsonschema.ValidationError, out []leaf, prefix string, falseMsgs map[string]string) []leaf {
	if len(e.Causes) == 0 {
		ptr := prefix + pointer(e.InstanceLocation)
		return append(out, leaf{ptr: ptr, depth: len(e.InstanceLocation), msg: message(e.ErrorKind, ptr, falseMsgs)})
	}
	causes := e.Causes
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		var kept []*jsonschema.ValidationError
		for _, c := range causes {
			if !failsDiscriminator(c, len(e.InstanceLocation)+1) {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			causes = kept
		} else if l, ok := discriminatorLeaf(e, prefix); ok {
			return append(out, l)
		}
	}
	for _, c := range causes {
		out = collect(c, out, prefix, falseMsgs)
	}
	return out
}

// failsDiscriminator reports whether e's tree has a "const" failure at an
// instance location depth of depth (a property of the union's value).
func failsDiscriminator(e *jsonschema.ValidationError, depth int) bool {
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == depth {
		return true
	}
	for _, c := range e.Causes {
		if failsDiscriminator(c, depth) {
			return true
		}
	}
	return false
}

// discriminatorLeaf words a union none of whose alternatives has the
// value's tag (e.g. "type": "video" among the content blocks) as one leaf at
// the tag, listing the allowed values, instead of one leaf per alternative.
// It fails unless every alternative's tag constraint is a "const" at one
// and the same property.
func discriminatorLeaf(e *jsonschema.ValidationError, prefix string) (leaf, bool) {
	depth := len(e.InstanceLocation) + 1
	var at []string
	var want []string
	for _, alt := range e.Causes {
		consts := constsAt(alt, depth, nil)
		if len(consts) == 0 {
			return leaf{}, false
		}
		for _, c := range consts {
			if at == nil {
				at = c.InstanceLocation
			} else if !slices.Equal(at, c.InstanceLocation) {
				return leaf{}, false
			}
			want = append(want, fmt.Sprintf("'%v'", c.ErrorKind.(*kind.Const).Want))
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	return leaf{
		ptr:   prefix + pointer(at),
		depth: len(at),
		msg:   "value must be one of " + strings.Join(want, ", "),
	}, true
}

// constsAt appends the "const" failures of e's tree at instance depth depth.
func constsAt(e *jsonschema.ValidationError, depth int, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == depth {
		out = append(out, e)
	}
	for _, c := range e.Causes {
		out = constsAt(c, depth, out)
	}
	return out
}

// message words one leaf. Format failures are worded here so that the
// offending value (a base64 payload can be megabytes) is not repeated.
func message(k jsonschema.ErrorKind, ptr string, falseMsgs map[string]string) string {
	switch k := k.(type) {
	case *kind.Format:
		return fmt.Sprintf("not a valid %q: %v", k.Want, k.Err)
	case *kind.FalseSchema:
		if m, ok := falseMsgs[ptr]; ok {
			return m
		}
		return "not allowed here"
	}
	// The library words the kind through a message printer we do not
	// import; a lone ValidationError with no location prints "at '': msg".
	s := (&jsonschema.ValidationError{ErrorKind: k}).Error()
	return strings.TrimPrefix(s, "at '': ")
}

// pointer renders instance-location tokens as an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = strictjson.EscapeToken(t)
		}
		sb.WriteString(t)
	}
	return sb.String()
}
