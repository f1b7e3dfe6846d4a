package main

import (
	"context"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/collect"
	"github.com/contractcheck/contractcheck/internal/guard"
)

const collectLong = `Collect receives the decision logs that stock OPAs serving the contract set's bundle upload
(decision_logs.service): each OPA's decision-log plugin POSTs gzip-compressed JSON arrays of events
to the service's URL and resource (default /logs), with its bearer token. Every event of a batch is
validated as check --decision-logs reads it, against the contract set the input flags select (the
flags the bundle was built with); a valid batch is written as posted to --dir, durably (a file of
its own, written under a temporary name, fsync'd, renamed, the directory fsync'd) before the 200
answer, so a restart loses nothing acknowledged. check --decision-logs DIR reports on the batches
at any time, while collect runs. With --census DIR each batch taken is also folded into a census
directory, a part per batch, written the same way before the answer: check --census DIR reports on
it at any time, in any format, without reading the batches again (a report says the batches it
covers and the expected bindings it lacks, as check --decision-logs does). Each part's header
names the digest of the contract set collect validates against; a --census directory of another
contract set is refused at start (exit 2).

A batch is taken whole or refused whole with a JSON body naming the reason, the event and the
member: 400 not gzip, not JSON or cut short, 413 too large, 415 not Content-Encoding: gzip, 422 an
event of the wrong shape or on a fixture the contract set does not know, 401 no or a wrong bearer
token.
OPA's plugin keeps and retries every upload not answered 2xx (a 500 when the disk fails too), so
a refusal caused by collect's flags (a missing --fixtures layer) is mended by restarting collect
with the right ones. GET /status gives the counters (accepted, refused by reason) as JSON; they are
said on standard error when collect stops (SIGTERM or Ctrl-C: the uploads in flight finish first).

Collect listens on loopback unless told: an address beyond it needs --tls-cert, --tls-key and
--token-file (exit 2 otherwise). docs/production.md has the OPA configuration and the sizing.`

const collectExample = `  contractcheck collect --dir /var/lib/contractcheck/batches
  contractcheck collect --dir batches --listen 10.0.0.5:8282 --tls-cert cert.pem --tls-key key.pem --token-file token
  contractcheck check --decision-logs /var/lib/contractcheck/batches
  contractcheck collect --dir batches --census census && contractcheck check --census census --format json`

func newCollectCommand() *cobra.Command {
	var cfg collect.Config
	cmd := &cobra.Command{
		Use:     "collect --dir DIR [--listen 127.0.0.1:PORT]",
		Short:   "Receive OPA's decision-log uploads into a directory check --decision-logs reads",
		Long:    collectLong,
		Example: collectExample,
		Args:    cobra.NoArgs,
		// A service whose live heap is its uploads in flight, each read event by event: its heap is
		// paced under a target of its own (guard.CollectTarget), unless --memory-budget is given.
		Annotations: map[string]string{memoryTargetKey: guard.Size(guard.CollectTarget)},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitOn(runCollect(cmd.Context(), cfg, cmd.ErrOrStderr()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Dir, "dir", "", "directory the accepted batches are written to (created if missing; required)")
	f.StringVar(&cfg.Census, "census", "", "also fold each batch taken into this census directory, a part per batch, durably before the answer, for check --census (created if missing; one collect wrote is added to)")
	f.StringVar(&cfg.Listen, "listen", collect.DefaultListen, "the address to listen on (beyond loopback: --tls-cert, --tls-key and --token-file are required)")
	f.StringVar(&cfg.Path, "path", collect.DefaultPath, "the upload path: the service URL's path and decision_logs.resource, as OPA joins them")
	f.StringVar(&cfg.TokenFile, "token-file", "", "file holding the bearer token every request must carry (OPA's services.<name>.credentials.bearer)")
	f.StringVar(&cfg.TLSCert, "tls-cert", "", "PEM certificate (chain) to serve HTTPS with")
	f.StringVar(&cfg.TLSKey, "tls-key", "", "PEM private key of --tls-cert")
	addInputFlags(cmd, &cfg.Instrument)
	return cmd
}

// runCollect serves until SIGTERM or SIGINT, then drains the uploads in flight.
func runCollect(ctx context.Context, cfg collect.Config, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg.Log = stderr // each refusal, as it happens
	c, err := collect.Prepare(ctx, &cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	return collect.Run(ctx, c, cfg, stderr)
}
