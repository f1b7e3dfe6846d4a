package inputs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// RecordFile is one .jsonl file of observation records: its directory and its fs path there.
type RecordFile struct {
	Dir  Dir
	Path string
}

// Display is the file's name in messages and reports.
func (f RecordFile) Display() string {
	_, d := f.Dir.Path(f.Dir.Rel(f.Path))
	return d
}

// Size is the file's size in bytes, or -1 when it is not known (standard input, a file that cannot
// be read: its error comes when it is read).
func (f RecordFile) Size() int64 {
	if isStdin(f.Dir) {
		return -1
	}
	fi, err := fs.Stat(f.Dir.FS, f.Path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// RecordFiles lists the .jsonl files below the options' observation directories, sorted within
// each directory, so records are always read in one order.
func (o Options) RecordFiles() ([]RecordFile, error) {
	dirs, err := o.ObservationDirs()
	if err != nil {
		return nil, err
	}
	var out []RecordFile
	for _, d := range dirs {
		if isStdin(d) {
			out = append(out, RecordFile{Dir: d, Path: StdinName})
			continue
		}
		files, err := RecordFiles(d)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// RecordFiles lists the .jsonl files below a directory, sorted.
func RecordFiles(d Dir) ([]RecordFile, error) {
	var files []string
	err := fs.WalkDir(d.FS, d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("observation records under %s: %w", d.Display, safeio.PathCause(err))
	}
	sort.Strings(files)
	out := make([]RecordFile, len(files))
	for i, f := range files {
		out[i] = RecordFile{Dir: d, Path: f}
	}
	return out, nil
}

// Lines streams the non-blank lines of the file, undecoded, with the file's display name; it
// stops when emit returns false. Decoding is the caller's (DecodeRecord): the check pipeline's
// workers decode the lines its reader reads (internal/check/pipeline); Records decodes them as
// they come.
func (f RecordFile) Lines(ctx context.Context, emit func(display string, l strictjson.Line) bool) error {
	display := f.Display()
	r, err := safeio.Open(f.Dir.FS, f.Path, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", display, safeio.PathCause(err))
	}
	defer r.Close()
	lr := strictjson.NewLineReader(display, r, strictjson.DefaultLimits)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := lr.NextLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !emit(display, l) {
			return nil
		}
	}
}

// RecordLine is one line of a record file decoded (DecodeRecord): the file as messages name it,
// the line's number, the record as a JSON document (numbers as json.Number), and its carrier as
// written in the line, nil when the record has none: a carrier repeated byte for byte is
// validated and projected once (instrument.ReadRecord).
type RecordLine struct {
	File    string
	Line    int
	Doc     any
	Carrier []byte

	// unbuilt is the decoder that read the line when it left the carrier's value unbuilt
	// (DecodeEnvelope), and line the line, for CarrierValue.
	unbuilt *strictjson.LineDecoder
	line    strictjson.Line
}

// DecodeRecord decodes one line of the record file file with dec, keeping the bytes of the
// record's carrier member (strictjson.LineDecoder.DecodeSpan). A line that is no JSON within the
// decoder's limits is an error naming file, line and column.
func DecodeRecord(dec *strictjson.LineDecoder, file string, l strictjson.Line) (RecordLine, error) {
	doc, carrier, err := dec.DecodeSpan(l, "carrier")
	if err != nil {
		return RecordLine{}, err
	}
	return RecordLine{File: file, Line: l.Number, Doc: doc, Carrier: carrier}, nil
}

// DecodeEnvelope decodes one line as DecodeRecord does but leaves the carrier's value unbuilt:
// its bytes are checked with the same strictness and errors, and kept, and its member in Doc is
// null (a record's schema asks only that it be there). A run whose scope may leave records out
// reads them so (internal/check/pipeline): a record outside it costs a scan of its carrier, not
// the carrier's tree; one within it builds the tree (CarrierValue).
func DecodeEnvelope(dec *strictjson.LineDecoder, file string, l strictjson.Line) (RecordLine, error) {
	doc, carrier, err := dec.DecodeSkipping(l, "carrier")
	if err != nil {
		return RecordLine{}, err
	}
	return RecordLine{File: file, Line: l.Number, Doc: doc, Carrier: carrier, unbuilt: dec, line: l}, nil
}

// CarrierValue is the record's carrier as a JSON value (nil when it has none): Doc's, or, when
// DecodeEnvelope left it unbuilt, the line decoded again with the decoder that read it, so on the
// goroutine that owns that decoder.
func (r RecordLine) CarrierValue() (any, error) {
	doc := r.Doc
	if r.unbuilt != nil {
		var err error
		if doc, _, err = r.unbuilt.DecodeSpan(r.line, ""); err != nil {
			return nil, err
		}
	}
	m, _ := doc.(map[string]any)
	return m["carrier"], nil
}

// Records streams the lines of the file decoded (DecodeRecord, the default limits), in order; it
// stops at the first line it cannot read or decode, whose error it returns, or when emit returns
// false.
func (f RecordFile) Records(ctx context.Context, emit func(RecordLine) bool) error {
	return f.records(ctx, DecodeRecord, emit)
}

// Envelopes streams the lines of the file as Records does, each decoded by DecodeEnvelope: its
// carrier checked and left unbuilt until RecordLine.CarrierValue asks for it (within emit: the
// decoder is the stream's).
func (f RecordFile) Envelopes(ctx context.Context, emit func(RecordLine) bool) error {
	return f.records(ctx, DecodeEnvelope, emit)
}

// records streams the lines of the file decoded by decode, in order, as Records says.
func (f RecordFile) records(ctx context.Context, decode func(*strictjson.LineDecoder, string, strictjson.Line) (RecordLine, error),
	emit func(RecordLine) bool) error {
	dec := strictjson.NewLineDecoder(strictjson.DefaultLimits)
	var bad error
	err := f.Lines(ctx, func(display string, l strictjson.Line) bool {
		r, err := decode(dec, display, l)
		if err != nil {
			bad = err
			return false
		}
		return emit(r)
	})
	if err != nil {
		return err
	}
	return bad
}
