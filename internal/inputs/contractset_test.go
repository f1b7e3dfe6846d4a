package inputs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// TestContractSet: the digest changes with what decides a reading (a layer's bytes, a file's
// name in its layer, the profile, the revision, a built-in layer left out) and with nothing else
// (where the layers lie, a fixture layer's observations, the scope).
func TestContractSet(t *testing.T) {
	write := func(t *testing.T, root string, files map[string]string) string {
		t.Helper()
		for name, data := range files {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	policy := map[string]string{"mine.rego": "package mine\n\nx := 1\n"}
	fixtures := map[string]string{"sources/s/a.json": "{}", "observations/r.jsonl": "{}\n"}
	base := func(t *testing.T) Options {
		dir := t.TempDir()
		return Options{Profile: "strict", Policies: []string{write(t, filepath.Join(dir, "p"), policy)},
			Fixtures: []string{write(t, filepath.Join(dir, "f"), fixtures)}}
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, o *Options)
		same   bool
	}{
		{name: "the layers elsewhere", same: true, change: func(t *testing.T, o *Options) {}},
		{name: "other observations in a fixture layer", same: true, change: func(t *testing.T, o *Options) {
			write(t, o.Fixtures[0], map[string]string{"observations/r.jsonl": "{\"other\":1}\n", "observations/more/s.jsonl": "{}\n"})
		}},
		{name: "another scope", same: true, change: func(t *testing.T, o *Options) { o.Scope = result.Scope{Lanes: []string{"direct"}} }},
		{name: "a policy's bytes", change: func(t *testing.T, o *Options) {
			write(t, o.Policies[0], map[string]string{"mine.rego": "package mine\n\nx := 2\n"})
		}},
		{name: "a policy's name", change: func(t *testing.T, o *Options) {
			if err := os.Rename(filepath.Join(o.Policies[0], "mine.rego"), filepath.Join(o.Policies[0], "yours.rego")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a fixture source", change: func(t *testing.T, o *Options) {
			write(t, o.Fixtures[0], map[string]string{"sources/s/b.json": "{}"})
		}},
		{name: "the profile", change: func(t *testing.T, o *Options) { o.Profile = "optional-null" }},
		{name: "the revision", change: func(t *testing.T, o *Options) { o.Revision = "2025-06-18" }},
		{name: "the default profile left unnamed", same: true, change: func(t *testing.T, o *Options) { o.Profile = "" }},
		{name: "the pinned revision named", same: true, change: func(t *testing.T, o *Options) { o.Revision = schema.DefaultRevision }},
		{name: "the built-in layers left out", change: func(t *testing.T, o *Options) { o.NoBuiltin = true }},
		{name: "the layer a file is in", change: func(t *testing.T, o *Options) { o.Contracts, o.Policies = o.Policies, nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := base(t).ContractSet()
			if err != nil {
				t.Fatal(err)
			}
			o := base(t)
			tc.change(t, &o)
			got, err := o.ContractSet()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 64 {
				t.Fatalf("digest %q: want 64 hexadecimal digits", got)
			}
			if (got == want) != tc.same {
				t.Errorf("digest %s, before the change %s: want them the same: %t", got, want, tc.same)
			}
		})
	}
	t.Run("a layer that cannot be read", func(t *testing.T) {
		o := base(t)
		o.Policies = append(o.Policies, filepath.Join(t.TempDir(), "missing"))
		if _, err := o.ContractSet(); err == nil {
			t.Fatal("no error")
		}
	})
}
