package bundle

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestOPAOperations runs what docs/opa.md tells an operator to do with a stock OPA: sign the
// bundle (opa build --signing-key) and run it with --verification-key, which refuses the unsigned
// bundle; and keep carriers out of the decision log with a mask policy beside the bundle.
func TestOPAOperations(t *testing.T) {
	opa := opaBinary(t)
	dir := t.TempDir()
	unsigned, mask := maskedBundle(t, dir, Settings{})
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	private, public := filepath.Join(dir, "private.pem"), filepath.Join(dir, "public.pem")
	testkit.WriteFile(t, private, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})))
	testkit.WriteFile(t, public, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})))
	tree := filepath.Join(dir, "tree")
	if out, err := exec.Command("tar", "-xzf", unsigned, "-C", mkdir(t, tree)).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	signed := filepath.Join(dir, "signed.tar.gz")
	if out, err := exec.Command(opa, "build", "--bundle", tree, "--signing-key", private, "--signing-alg", "RS256", "-o", signed).CombinedOutput(); err != nil {
		t.Fatalf("opa build --signing-key: %v\n%s", err, out)
	}

	input := map[string]any{"fixture": "C02", "lane": "go-sdk", "laneVersion": "v1.8.0", "configuration": "default", "stage": "D1",
		"carrier": map[string]any{"content": []any{}, "structuredContent": map[string]any{"sequence": json.Number("9007199254740992")}}}

	t.Run("signed bundle verified", func(t *testing.T) {
		s, logs := run(t, opa, "--bundle", signed, "--verification-key", public, "--signing-alg", "RS256")
		d, err := s.decide(&http.Client{Timeout: time.Minute}, input)
		if err != nil {
			t.Fatalf("%v\n%s", err, logs.String())
		}
		if d["profile"] != "strict" {
			t.Errorf("decision %v", d)
		}
	})
	t.Run("unsigned bundle refused", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, opa, "run", "--server", "--addr", testkit.FreeAddr(t), "--bundle", unsigned, "--verification-key", public).CombinedOutput()
		if err == nil || !strings.Contains(string(out), ".signatures.json") {
			t.Errorf("opa run with a verification key on the unsigned bundle: %v\n%s", err, out)
		}
	})
	t.Run("the user's data out of the decision log", func(t *testing.T) {
		// A result no catalogue entry names, posted with its source, whose carrier lost a text
		// block and a resource link: the mask erases the carrier and the source, and the
		// decision describes what it lacks without quoting it.
		const secret = "SECRET-7f3a"
		src := map[string]any{"content": []any{
			map[string]any{"type": "text", "text": "text " + secret},
			map[string]any{"type": "resource_link", "uri": "https://example.com/" + secret, "name": "n"},
		}}
		mine := map[string]any{"fixture": "MINE-1", "suite": "mine", "lane": "direct", "laneVersion": "v1", "configuration": "default",
			"stage": "D1", "source": src, "carrier": map[string]any{"content": []any{}}}
		s, logs := run(t, opa, "--bundle", unsigned, "--bundle", mask, "--set", "decision_logs.console=true")
		client := &http.Client{Timeout: time.Minute}
		for _, in := range []map[string]any{input, mine} {
			d, err := s.decide(client, in)
			if err != nil {
				t.Fatal(err)
			}
			if d["errors"] != nil {
				t.Fatalf("decision %v", d)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			var entries []string
			sc := bufio.NewScanner(strings.NewReader(logs.String()))
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"decision_id"`) {
					entries = append(entries, sc.Text())
				}
			}
			if len(entries) == 2 {
				for _, e := range entries {
					var entry map[string]any
					if err := json.Unmarshal([]byte(e), &entry); err != nil {
						t.Fatal(err)
					}
					in, _ := entry["input"].(map[string]any)
					_, carrier := in["carrier"]
					_, source := in["source"]
					if carrier || source || strings.Contains(e, secret) || !strings.Contains(e, `"/input/carrier"`) {
						t.Errorf("decision log entry holds the user's data: %s", e)
					}
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d decisions in the console log, want 2:\n%s", len(entries), logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// run starts opa run --server with the arguments and waits until it is healthy.
func run(t testing.TB, opa string, args ...string) (*server, *testkit.Buffer) {
	t.Helper()
	addr := testkit.FreeAddr(t)
	s := &server{url: "http://" + addr}
	logs := &testkit.Buffer{}
	s.cmd = exec.Command(opa, append([]string{"run", "--server", "--addr", addr}, args...)...)
	s.cmd.Stdout, s.cmd.Stderr = logs, logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get(s.url + "/health?bundles"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, logs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("opa run --server %v did not become healthy:\n%s", args, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMaskPolicyDocumented: the mask policy the tests serve is the one docs/opa.md gives, word for
// word, and is formatted as opa fmt writes it.
func TestMaskPolicyDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "opa.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```rego\n"+MaskPolicy+"```\n") {
		t.Errorf("docs/opa.md does not give the mask policy as MaskPolicy holds it:\n%s", MaskPolicy)
	}
	formatted, err := format.SourceWithOpts("mask.rego", []byte(MaskPolicy), format.Opts{RegoVersion: ast.RegoV1})
	if err != nil || string(formatted) != MaskPolicy {
		t.Errorf("MaskPolicy is not as opa fmt writes it (%v):\n%s", err, formatted)
	}
	if !strings.Contains(string(doc), MaskManifest) {
		t.Errorf("docs/opa.md does not give the mask's manifest %s", MaskManifest)
	}
}
