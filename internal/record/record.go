// Package record is `contractcheck record`: a recording proxy for an agent's real traffic. It
// sits between the agent and its MCP server (a reverse proxy to a Streamable HTTP endpoint, or,
// for a server on stdio, `contractcheck record stdio`, which the agent starts in the server's
// place) and between the agent and its model provider (a reverse proxy to the provider's base
// URL: OpenAI Responses, Chat Completions, Anthropic Messages and Gemini, plain and streamed).
// It forwards every byte unchanged and, beside the forwarding, pairs each tools/call result as
// the server sent it with the provider request item that carries it (found through the model's
// tool call in the request's history: same tool, equal arguments) and writes, for a lane the user
// names, the result as an uncatalogued source (sources/<suite>/<id>.json) and its observation
// records (H4 the item; D1, A2, M3 not observable), with record.json and record.cue beside them:
// the directory is a complete input of `contractcheck check`.
//
// Nothing of a request's headers or URL is written; credential values seen there are also looked
// for in what is written, and a pair holding one is refused. --redact blanks values before
// anything is written. What the recorder holds and writes is bounded, and whatever it could not
// record is counted and said, never dropped silently.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package record

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http/httpguts"

	sink "github.com/contractcheck/contractcheck/internal/escape" // redact.go has an escape of its own
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Options are what a recording proxies and where it writes.
type Options struct {
	// Lane, Version and Configuration name what the records are for (as probe's flags).
	Lane, Version, Configuration string
	// Suite is the fixtures suite the sources are written under (sources/<suite>/).
	Suite string
	// MCPURL is the MCP server's Streamable HTTP endpoint the /mcp proxy forwards to.
	MCPURL string
	// MCPCommand is the argv of an MCP server on stdio, which the agent is told to start through
	// `contractcheck record stdio` (CONTRACTCHECK_MCP_COMMAND).
	MCPCommand []string
	// ProviderURL is the model provider's base URL the /provider proxy forwards to.
	ProviderURL string
	// ProviderAPI fixes the lane's provider API ("" means the API of the first request paired).
	ProviderAPI fakeprovider.API
	// Listen is the address the proxies listen on (127.0.0.1:0 when empty).
	Listen string
	// Output is the directory the sources, records, record.json and record.cue go to.
	Output string
	// Redact are JSON pointers (RFC 6901) into each tools/call result whose values are blanked
	// before anything is written.
	Redact []string
	// SecretHeaders name request headers whose values are credentials besides the built-in ones
	// (Authorization, Cookie, x-api-key, …): they are sought in everything written like those.
	SecretHeaders []string
	// MaxRecords stops recording after this many pairs (0: no limit); MaxBytes after this many
	// bytes written (0: no limit). The proxies keep forwarding.
	MaxRecords int
	MaxBytes   int64
	// Duration stops the recording after this long (0: until the command exits or ctx ends).
	Duration time.Duration
	// CAFile is a PEM file of certificate authorities trusted for the upstreams besides the
	// system's.
	CAFile string
	// Command is the agent command; empty serves until ctx ends (or Duration).
	Command []string
	// Executable is the contractcheck binary that CONTRACTCHECK_MCP_COMMAND starts.
	Executable string
	// Env is the environment the command inherits (os.Environ() when nil).
	Env []string
	// Stdout and Stderr receive the command's output (os.Stdout and os.Stderr when nil).
	Stdout, Stderr io.Writer
	// Log receives where the proxies listen and every loud line.
	Log io.Writer
	// Ready, when set, is told the endpoints once the proxies listen.
	Ready func(Endpoints)

	redact []pointer
	// budget, when set, replaces the context's memory budget (guard.LimitsOf), and spoolIn the
	// directory the spool is made in (os.TempDir()): for the tests.
	budget  int64
	spoolIn string
	// shutdownGrace, when set, replaces how long the end lets exchanges still passing finish
	// before it cuts them (defaultShutdownGrace): for the tests of a provider that never answers.
	shutdownGrace time.Duration
}

// defaultShutdownGrace is how long the end of a recording lets exchanges still passing finish
// before it cuts them and writes what they carried as failed.
const defaultShutdownGrace = 5 * time.Second

// Endpoints are where the proxies listen.
type Endpoints struct {
	// MCP is the Streamable HTTP endpoint ("" without an MCP URL); Provider the provider base
	// URL (OPENAI_BASE_URL is Provider + "/v1"); Stdio the URL `record stdio --to` posts to.
	MCP, Provider, Stdio string
	// MCPCommand is the command line that starts the stdio MCP server through the recorder (""
	// without MCPCommand).
	MCPCommand string
}

// Env is the environment that points an agent at the proxies (the user's own API keys stay).
func (e Endpoints) Env() []string {
	env := []string{
		"OPENAI_BASE_URL=" + e.Provider + "/v1",
		"ANTHROPIC_BASE_URL=" + e.Provider,
		"GOOGLE_GEMINI_BASE_URL=" + e.Provider,
	}
	if e.MCP != "" {
		env = append(env, "CONTRACTCHECK_MCP_URL="+e.MCP)
	}
	if e.MCPCommand != "" {
		env = append(env, "CONTRACTCHECK_MCP_COMMAND="+e.MCPCommand)
	}
	return env
}

// Result is what a recording did.
type Result struct {
	Stats
	// Endpoints are where the proxies listened.
	Endpoints Endpoints
	// AgentErr is why the agent command failed, if it did.
	AgentErr error
}

// normalize checks the options and fills in the defaults.
func (o *Options) normalize() error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Configuration == "" {
		o.Configuration = "default"
	}
	if o.Suite == "" {
		o.Suite = "recorded"
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	switch {
	case o.Lane == "":
		return result.Inputf("record: --lane is required (the agent or framework the records are for)")
	case !laneout.NameRE.MatchString(o.Lane):
		return result.Inputf("record: --lane %q: lower-case letters, digits, '.', '-', '_'", o.Lane)
	case o.Version == "":
		return result.Inputf("record: --version is required (the lane version the records are for)")
	case !laneout.VersionRE.MatchString(o.Version):
		return result.Inputf("record: --version %q: letters, digits, '.', '_', '+', '-'", o.Version)
	case !laneout.NameRE.MatchString(o.Configuration):
		return result.Inputf("record: --configuration %q: lower-case letters, digits, '.', '-', '_'", o.Configuration)
	case !laneout.NameRE.MatchString(o.Suite):
		return result.Inputf("record: --suite %q: lower-case letters, digits, '.', '-', '_'", o.Suite)
	case o.Output == "":
		return result.Inputf("record: --output is required (the directory the sources and records are written to)")
	case o.ProviderURL == "":
		return result.Inputf("record: --provider is required (the model provider's base URL, e.g. https://api.openai.com)")
	case o.MCPURL == "" && len(o.MCPCommand) == 0:
		return result.Inputf("record: give --mcp URL (a Streamable HTTP server) or --mcp-command (a server on stdio)")
	case o.MaxRecords < 0:
		return result.Inputf("record: --max-records %d: want 0 (no limit) or more", o.MaxRecords)
	case o.MaxBytes < 0:
		return result.Inputf("record: --max-bytes %d: want 0 (no limit) or more", o.MaxBytes)
	}
	if o.ProviderAPI != "" {
		if _, err := fakeprovider.ParseAPI(string(o.ProviderAPI)); err != nil {
			return result.Inputf("record: --provider-api: %v", err)
		}
	}
	for flag, u := range map[string]string{"--provider": o.ProviderURL, "--mcp": o.MCPURL} {
		if u == "" {
			continue
		}
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return result.Inputf("record: %s %s: want an http or https URL", flag, strings.Split(u, "@")[len(strings.Split(u, "@"))-1])
		}
	}
	for _, h := range o.SecretHeaders {
		if !httpguts.ValidHeaderFieldName(h) {
			return result.Inputf("record: --secret-header %q: not an HTTP header name (RFC 9110 token characters)", h)
		}
	}
	o.redact = nil
	for _, r := range o.Redact {
		p, err := parsePointer(r)
		if err != nil {
			return result.Inputf("record: %v", err)
		}
		o.redact = append(o.redact, p)
	}
	if host, _, err := net.SplitHostPort(o.Listen); err != nil {
		return result.Inputf("record: --listen %q: want HOST:PORT (%v)", o.Listen, err)
	} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(o.Log, "record: warning: --listen %s is not loopback: anyone who reaches it can use the proxies and your upstream credentials travel through it\n", o.Listen)
	}
	if o.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("record: find the contractcheck binary: %w", err)
		}
		o.Executable = exe
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	return nil
}

// recorder is one recording: the proxies, the engine and the writer.
type recorder struct {
	o      *Options
	creds  *credentials
	eng    *engine
	w      *writer
	tr     *http.Transport
	spool  *spool
	cancel context.CancelFunc

	sendMu sync.RWMutex
	closed bool

	// inflight are the exchanges whose outcome goes to the engine once their answer passed
	// (provider generation requests, MCP POSTs), active how many; ending is set when the
	// recording cuts those still passing at its end.
	inflight sync.WaitGroup
	active   atomic.Int64
	ending   atomic.Bool

	exchanges atomic.Int64
	fatalMu   sync.Mutex
	fatal     error

	stdioMu   sync.Mutex
	stdioOpen map[string]bool
	stdioIdle *sync.Cond
	token     string
}

// send hands an event to the engine, waiting while its queue is full; after the engine stops,
// it is dropped (the recording is over).
func (r *recorder) send(ev event) {
	r.sendMu.RLock()
	defer r.sendMu.RUnlock()
	if r.closed {
		return
	}
	r.eng.events <- ev
}

func (r *recorder) note(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintln(r.o.Log, strings.ReplaceAll(line, "\n", " "))
}

func (r *recorder) fail(err error) {
	r.fatalMu.Lock()
	defer r.fatalMu.Unlock()
	if r.fatal == nil {
		r.fatal = err
		r.note("record: %s: recording ends", strings.TrimPrefix(err.Error(), "record: "))
		r.cancel()
	}
}

// Run records until the command exits (or, without one, until ctx ends or Duration passes).
// The error is a *result.InputError for bad input (exit 2), or what stopped the recording (a write that failed).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	tr, err := transport(o.CAFile)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &recorder{o: &o, creds: newCredentials(o.SecretHeaders), tr: tr, cancel: cancel, stdioOpen: map[string]bool{}}
	r.stdioIdle = sync.NewCond(&r.stdioMu)
	budget := guard.LimitsOf(ctx).Memory
	if o.budget > 0 {
		budget = o.budget
	}
	sp, err := newSpool(o.spoolIn, budget)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := sp.close(); err != nil {
			r.note("%v", err)
		}
	}()
	r.spool = sp
	r.eng = newEngine(func(c mcpCall, p provResult) {
		if err := r.w.pair(c, p); err != nil {
			if !errors.Is(err, errStopped) {
				r.fail(err)
			}
			r.eng.count(func(s *Stats) { s.Refused++ })
		}
	}, r.note)
	r.eng.spool = sp
	r.w, err = openWriter(&o, r.creds, r.note, r.eng.count)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		r.w.close()
		return nil, result.Inputf("record: --listen %s: %v", o.Listen, err)
	}
	r.token = newToken()
	base := "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	ep := Endpoints{Provider: base + "/provider", Stdio: base + "/stdio/" + r.token}
	provider, err := r.providerProxy(o.ProviderURL)
	if err != nil {
		return nil, err
	}
	mux.Handle("/provider/", provider)
	if o.MCPURL != "" {
		h, err := r.mcpProxy(o.MCPURL)
		if err != nil {
			return nil, err
		}
		mux.Handle("/mcp", h)
		ep.MCP = base + "/mcp"
	}
	if len(o.MCPCommand) > 0 {
		ep.MCPCommand = sink.ShellJoin(append([]string{o.Executable, "record", "stdio", "--to", ep.Stdio, "--"}, o.MCPCommand...))
	}
	mux.HandleFunc("/stdio/"+r.token, r.stdioEndpoint)
	// The requests' contexts derive from base: cancelling it at the end cuts the upstream
	// exchanges still passing, whose handlers then say so (an answer that never came).
	baseCtx, cutExchanges := context.WithCancel(context.Background())
	defer cutExchanges()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second, BaseContext: func(net.Listener) context.Context { return baseCtx }}
	go r.eng.loop()
	go func() { _ = srv.Serve(ln) }()

	fmt.Fprintf(o.Log, "record: provider proxy %s -> %s\n", ep.Provider, redactURL(o.ProviderURL))
	if ep.MCP != "" {
		fmt.Fprintf(o.Log, "record: MCP proxy %s -> %s\n", ep.MCP, redactURL(o.MCPURL))
	}
	if ep.MCPCommand != "" {
		fmt.Fprintf(o.Log, "record: MCP on stdio: have the agent start %s\n", ep.MCPCommand)
	}
	if o.Ready != nil {
		o.Ready(ep)
	}
	res := &Result{Endpoints: ep}
	if o.Duration > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, o.Duration)
		defer stop()
	}
	if len(o.Command) > 0 {
		res.AgentErr = r.runAgent(ctx, ep)
		if res.AgentErr != nil {
			r.note("record: the agent command failed: %v", res.AgentErr)
		}
	} else {
		fmt.Fprintln(o.Log, "record: recording until interrupted (SIGINT or SIGTERM)")
		<-ctx.Done()
	}
	r.waitStdio(5 * time.Second)
	grace := defaultShutdownGrace
	if o.shutdownGrace > 0 {
		grace = o.shutdownGrace
	}
	sctx, scancel := context.WithTimeout(context.Background(), grace)
	if err := srv.Shutdown(sctx); err != nil {
		// Exchanges still passing (a provider that never answers, a stream left open): cut
		// them; their handlers hand the engine what they carried, failed.
		r.ending.Store(true)
		cutExchanges()
		_ = srv.Close()
	}
	scancel()
	if !waitFor(&r.inflight, 5*time.Second) {
		n := int(r.active.Load())
		r.eng.count(func(s *Stats) { s.Unfinished += n })
		r.note("record: %d exchanges still passing after the recording ended could not be stopped: what they carry is not recorded", n)
	}
	flushed := make(chan struct{})
	r.send(event{flush: flushed, final: true})
	<-flushed
	r.sendMu.Lock()
	r.closed = true
	close(r.eng.events)
	r.sendMu.Unlock()
	if err := r.w.close(); err != nil {
		r.fail(err)
	}
	tr.CloseIdleConnections()
	res.Stats = r.eng.Stats()
	r.fatalMu.Lock()
	fatal := r.fatal
	r.fatalMu.Unlock()
	fmt.Fprintf(o.Log, "record: %s\n", res.Stats)
	if fatal != nil {
		return res, fatal
	}
	return res, nil
}

// waitFor waits up to d for wg, and reports whether it is done.
func waitFor(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// begin and end bracket an exchange whose outcome goes to the engine when its answer passed.
func (r *recorder) begin() {
	r.inflight.Add(1)
	r.active.Add(1)
}

func (r *recorder) end() {
	r.active.Add(-1)
	r.inflight.Done()
}

// transport is the upstream transport: the default one's settings, TLS verified against the
// system's roots and the CA file's.
func transport(caFile string) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	tr.MaxIdleConns = 512
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, result.Inputf("record: --ca-file: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, result.Inputf("record: --ca-file %s: no PEM certificate in it", caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return tr, nil
}

// redactURL is a URL as it may be shown: no userinfo, no query.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// runAgent runs the agent command with the proxies in its environment.
func (r *recorder) runAgent(ctx context.Context, ep Endpoints) error {
	o := r.o
	cmd := exec.CommandContext(ctx, o.Command[0], o.Command[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = slices.Concat(o.Env, ep.Env(), fakeprovider.NoTelemetryEnv)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, o.Stdout, o.Stderr
	if cmd.Stdout == nil {
		cmd.Stdout = os.Stdout
	}
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil && r.fatalErr() == nil {
			return nil // stopped by --duration or a signal: not the agent's failure
		}
		return err
	}
	return nil
}

func newToken() string {
	var b [12]byte
	if _, err := io.ReadFull(randReader, b[:]); err != nil {
		panic(err)
	}
	return fmt.Sprintf("%x", b)
}

func (r *recorder) fatalErr() error {
	r.fatalMu.Lock()
	defer r.fatalMu.Unlock()
	return r.fatal
}
