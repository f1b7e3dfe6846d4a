package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// DefaultListen is where collect listens unless told: loopback only.
const DefaultListen = "127.0.0.1:8282"

// ShutdownGrace is how long a stopping collect waits for the uploads in flight to finish.
const ShutdownGrace = 30 * time.Second

// Config is a collect run: the collector's options, where it listens and how it is secured, and
// the contract set (the bundle's input flags) its batches are validated against.
type Config struct {
	Options
	// Listen is the address (DefaultListen when ""). An address that is not loopback needs TLS
	// (TLSCert, TLSKey) and a bearer token (TokenFile).
	Listen string
	// TokenFile holds the bearer token, surrounding white space trimmed as OPA trims a
	// credentials.bearer.token_path.
	TokenFile string
	// TLSCert and TLSKey are PEM files: collect then serves HTTPS.
	TLSCert, TLSKey string
	// Instrument selects the contract set (the --profile, --contracts, --policies, --fixtures,
	// --schemas flags the bundle was built with).
	Instrument inputs.Options
}

// escapedWriter writes the HTTP server's own messages (a TLS handshake that failed, …) with
// every control or bidi character escaped.
type escapedWriter struct{ w io.Writer }

func (e escapedWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(e.w, escape.TerminalLines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Loopback says whether a listen address is on this machine only (127.0.0.0/8, ::1, localhost).
func Loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// Prepare checks the configuration (an input error, exit 2, when it is not one collect runs
// with: a non-loopback address without TLS and a token, half a TLS pair, an empty token file),
// reads the token, loads the contract set and opens the directory.
func Prepare(ctx context.Context, cfg *Config) (*Collector, error) {
	usage := func(format string, args ...any) (*Collector, error) {
		return nil, &result.InputError{Err: fmt.Errorf(format, args...)}
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	local, err := Loopback(cfg.Listen)
	if err != nil {
		return usage("collect --listen %q: %v", cfg.Listen, err)
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return usage("collect: give both --tls-cert and --tls-key, or neither")
	}
	if !local && (cfg.TLSCert == "" || cfg.TokenFile == "") {
		return usage("collect --listen %q is not a loopback address: decisions would cross the network, so give --tls-cert and --tls-key (HTTPS) and --token-file (the bearer token OPA's service sends: services.<name>.credentials.bearer), or listen on 127.0.0.1", cfg.Listen)
	}
	if cfg.TokenFile != "" {
		data, err := os.ReadFile(cfg.TokenFile)
		if err != nil {
			return usage("collect --token-file: %v", err)
		}
		cfg.Token = strings.TrimSpace(string(data))
		if cfg.Token == "" {
			return usage("collect --token-file %s: the file holds no token", cfg.TokenFile)
		}
	}
	if cfg.Dir == "" {
		return usage("collect: --dir is required (the directory the batches are written to)")
	}
	in, err := instrument.Load(ctx, cfg.Instrument)
	if err != nil {
		return nil, err
	}
	c, err := New(in, cfg.Options)
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	return c, nil
}

// Run serves c at cfg.Listen until ctx is done (Serve).
func Run(ctx context.Context, c *Collector, cfg Config, stderr io.Writer) error {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return &result.InputError{Err: fmt.Errorf("collect --listen: %w", err)}
	}
	return Serve(ctx, c, ln, cfg, stderr)
}

// Serve serves c on ln (HTTPS when cfg names a certificate) until ctx is done (SIGTERM, SIGINT),
// then stops taking connections, lets the uploads in flight finish (up to ShutdownGrace) and says
// the counters on stderr.
func Serve(ctx context.Context, c *Collector, ln net.Listener, cfg Config, stderr io.Writer) error {
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	auth := "no token"
	if c.opts.Token != "" {
		auth = "bearer token required"
	}
	into := escape.Terminal(c.opts.Dir)
	if c.opts.Census != "" {
		into += ", folded into the census " + escape.Terminal(c.opts.Census)
	}
	fmt.Fprintf(stderr, "collect: receiving OPA decision-log uploads at %s://%s%s (%s) into %s; counters at GET %s; stop with SIGTERM or Ctrl-C\n",
		scheme, ln.Addr(), escape.Terminal(c.opts.Path), auth, into, StatusPath)
	hs := &http.Server{Handler: c, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: log.New(escapedWriter{stderr}, "collect: ", 0)}
	served := make(chan error, 1)
	go func() {
		if cfg.TLSCert != "" {
			served <- hs.ServeTLS(ln, cfg.TLSCert, cfg.TLSKey)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "collect: %s\n", escape.Terminal(c.Status().String()))
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return &result.InputError{Err: fmt.Errorf("collect: %w", err)}
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-served
	fmt.Fprintf(stderr, "collect: stopped; %s\n", escape.Terminal(c.Status().String()))
	if err != nil {
		return fmt.Errorf("collect: uploads still in flight after %s: %w", ShutdownGrace, err)
	}
	return nil
}
