package main

import (
	"io"
	"testing"
)

// BenchmarkCheckUserLayer runs, in one process, the check of init's layer over and over.
func BenchmarkCheckUserLayer(b *testing.B) {
	b.Chdir(b.TempDir())
	if code := run([]string{"init", "mine"}, io.Discard, io.Discard); code != 0 {
		b.Fatal("init")
	}
	args := []string{"check", "--no-cache", "--contracts", "mine", "--policies", "mine", "--profile", "mine"}
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkCheckBuiltin is the built-in check, in one process, over and over.
func BenchmarkCheckBuiltin(b *testing.B) {
	b.Chdir(b.TempDir())
	for b.Loop() {
		if code := run([]string{"check", "--no-cache"}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
