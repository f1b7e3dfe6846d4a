// Command recdiff compares two trees of observation records (.jsonl) record by record, the way
// `scripts/capture --check` needs: every file and line must match exactly as JSON values, except
// that a value at a JSON pointer listed in the volatile file (one pointer per line, into the
// record, e.g. /carrier/contents/0/parts/0/functionCall/id; # starts a comment) is compared by
// presence only. A framework that draws a random id at run time is recorded as it ran; only the
// comparison looks past that id.
//
// Usage:
//
//	recdiff [-volatile FILE] COMMITTED_DIR FRESH_DIR
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

func main() {
	volatile := flag.String("volatile", "", "file of JSON pointers whose values may differ between captures")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: recdiff [-volatile FILE] COMMITTED_DIR FRESH_DIR")
		os.Exit(2)
	}
	pointers, err := readPointers(*volatile)
	if err == nil {
		err = compare(flag.Arg(0), flag.Arg(1), pointers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recdiff:", err)
		os.Exit(1)
	}
}

func readPointers(path string) ([][]string, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "/") {
			return nil, fmt.Errorf("%s: %q is not a JSON pointer", path, line)
		}
		var toks []string
		for _, t := range strings.Split(line[1:], "/") {
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
		out = append(out, toks)
	}
	return out, nil
}

func files(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func compare(committed, fresh string, volatile [][]string) error {
	a, err := files(committed)
	if err != nil {
		return err
	}
	b, err := files(fresh)
	if err != nil {
		return err
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		return fmt.Errorf("record files differ: committed %v, fresh %v", a, b)
	}
	for _, f := range a {
		if err := compareFile(filepath.Join(committed, f), filepath.Join(fresh, f), volatile); err != nil {
			return err
		}
	}
	return nil
}

func lines(path string) ([]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []any
	lr := strictjson.NewLineReader(path, bufio.NewReader(f), strictjson.DefaultLimits)
	for {
		_, v, err := lr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		out = append(out, v)
	}
}

func compareFile(a, b string, volatile [][]string) error {
	ra, err := lines(a)
	if err != nil {
		return err
	}
	rb, err := lines(b)
	if err != nil {
		return err
	}
	if len(ra) != len(rb) {
		return fmt.Errorf("%s: %d records, fresh capture has %d", a, len(ra), len(rb))
	}
	for i := range ra {
		for _, p := range volatile {
			if err := blank(ra[i], rb[i], p); err != nil {
				return fmt.Errorf("%s: record %d: %w", a, i+1, err)
			}
		}
		if !strictjson.Equal(ra[i], rb[i]) {
			x, _ := strictjson.Marshal(ra[i])
			y, _ := strictjson.Marshal(rb[i])
			return fmt.Errorf("%s: record %d differs\ncommitted: %.400s\nfresh:     %.400s", a, i+1, x, y)
		}
	}
	return nil
}

// blank replaces the values at pointer p in both records by the same marker when both have one,
// so only their presence is compared.
func blank(a, b any, p []string) error {
	for i, tok := range p {
		ma, okA := a.(map[string]any)
		mb, okB := b.(map[string]any)
		if okA && okB {
			va, inA := ma[tok]
			vb, inB := mb[tok]
			if inA != inB {
				return fmt.Errorf("volatile /%s: present in one capture only", strings.Join(p[:i+1], "/"))
			}
			if !inA {
				return nil
			}
			if i == len(p)-1 {
				ma[tok], mb[tok] = "<volatile>", "<volatile>"
				return nil
			}
			a, b = va, vb
			continue
		}
		la, okA := a.([]any)
		lb, okB := b.([]any)
		if !okA || !okB {
			return nil
		}
		var idx int
		if _, err := fmt.Sscan(tok, &idx); err != nil || idx < 0 || idx >= len(la) || idx >= len(lb) {
			return nil
		}
		if i == len(p)-1 {
			la[idx], lb[idx] = "<volatile>", "<volatile>"
			return nil
		}
		a, b = la[idx], lb[idx]
	}
	return nil
}
