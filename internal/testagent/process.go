package testagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The modes of an agent that misbehaves as a process, or on the wire, as real clients do (the
// probe's tests of leftover processes, signals and requests the fake provider does not
// understand). Run dispatches them through extraModes before it connects to anything.
const (
	// ModeDaemon starts a detached grandchild (its own session, as a daemon is: the same
	// executable in ModeSleep, its arguments those of the agent plus TESTAGENT_DAEMON_ARG; with
	// TESTAGENT_DAEMON_ENV=clean an environment of its own and CONTRACTCHECK_MCP_URL as its last
	// argument) and then runs as ModeNormal, leaving the grandchild behind when it exits.
	ModeDaemon = "daemon"
	// ModeSleep writes its pid as a line to TESTAGENT_PID_FILE (followed by CONTRACTCHECK_FIXTURE
	// and CONTRACTCHECK_REPETITION with TESTAGENT_PID_LABEL=1: the run it belongs to) and sleeps
	// until SIGTERM or SIGINT, or forever with TESTAGENT_IGNORE_TERM=1 (only SIGKILL ends it then).
	ModeSleep = "sleep"
	// ModeRawRequest sends one request to the provider, TESTAGENT_REQUEST "METHOD /path" under
	// the provider root (OPENAI_BASE_URL without its /v1) with TESTAGENT_REQUEST_BODY (default
	// {}), and fails (exit 1) unless it is answered 200.
	ModeRawRequest = "raw-request"
	// ModeHangAfterCall calls the tool the model asks for in its first turn, then waits until
	// the context ends without sending the result on (an agent that hangs on a result).
	ModeHangAfterCall = "hang-after-call"
)

// extraModes are the modes of this file, by name (set by init: runDaemon runs Run, which
// reads the map).
var extraModes map[string]func(context.Context, Config) error

func init() {
	extraModes = map[string]func(context.Context, Config) error{
		ModeDaemon:        runDaemon,
		ModeSleep:         runSleep,
		ModeRawRequest:    runRawRequest,
		ModeHangAfterCall: runHangAfterCall,
	}
}

// runDaemon starts the detached grandchild, waits until it has written its pid, and runs the
// agent.
func runDaemon(ctx context.Context, cfg Config) error {
	getenv := envOf(cfg)
	pidFile := getenv("TESTAGENT_PID_FILE")
	if pidFile == "" {
		return errors.New("testagent: mode daemon: TESTAGENT_PID_FILE is not set")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("testagent: mode daemon: %w", err)
	}
	args := append(append([]string(nil), os.Args[1:]...), getenv("TESTAGENT_DAEMON_ARG"))
	env := append(os.Environ(), "TESTAGENT_MODE="+ModeSleep)
	if getenv("TESTAGENT_DAEMON_ENV") == "clean" {
		// As an MCP client starts a server: an environment of its own, the server's URL on its
		// command line.
		args = append(args, getenv("CONTRACTCHECK_MCP_URL"))
		env = []string{EnvSwitch + "=" + getenv(EnvSwitch), "TESTAGENT_MODE=" + ModeSleep, "TESTAGENT_PID_FILE=" + pidFile}
	}
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("testagent: mode daemon: start the grandchild: %w", err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	if err := cmd.Process.Release(); err != nil {
		return fmt.Errorf("testagent: mode daemon: %w", err)
	}
	// Its own line, not another run's: runs made at once (probe --jobs) may share the file.
	written := func() bool {
		now, _ := os.ReadFile(pidFile)
		for _, l := range strings.Split(string(now), "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == pid {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if written() {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("testagent: mode daemon: the grandchild wrote no pid within 10s")
		}
	}
	cfg.Mode = ModeNormal
	return Run(ctx, cfg)
}

// runHangAfterCall runs one model turn and its tool calls, then hangs.
func runHangAfterCall(ctx context.Context, cfg Config) error {
	cfg.Mode, cfg.MaxTurns = ModeNormal, 1
	if err := Run(ctx, cfg); err != nil {
		return err
	}
	<-ctx.Done()
	return fmt.Errorf("testagent: hung after the tool call until %w", ctx.Err())
}

// runSleep writes the pid and sleeps.
func runSleep(ctx context.Context, cfg Config) error {
	getenv := envOf(cfg)
	if getenv("TESTAGENT_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		ctx = context.Background()
	}
	f, err := os.OpenFile(getenv("TESTAGENT_PID_FILE"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("testagent: mode sleep: %w", err)
	}
	line := strconv.Itoa(os.Getpid())
	if getenv("TESTAGENT_PID_LABEL") == "1" {
		line += " " + getenv("CONTRACTCHECK_FIXTURE") + " " + getenv("CONTRACTCHECK_REPETITION")
	}
	_, err = fmt.Fprintln(f, line) // one write: runs at once append to one file
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("testagent: mode sleep: %w", err)
	}
	<-ctx.Done()
	return fmt.Errorf("testagent: slept until %w", ctx.Err())
}

// runRawRequest sends the one request.
func runRawRequest(ctx context.Context, cfg Config) error {
	getenv := envOf(cfg)
	method, path, ok := strings.Cut(getenv("TESTAGENT_REQUEST"), " ")
	if !ok {
		return fmt.Errorf("testagent: mode raw-request: TESTAGENT_REQUEST %q is not \"METHOD /path\"", getenv("TESTAGENT_REQUEST"))
	}
	body := getenv("TESTAGENT_REQUEST_BODY")
	if body == "" {
		body = "{}"
	}
	root := strings.TrimSuffix(getenv("OPENAI_BASE_URL"), "/v1")
	req, err := http.NewRequestWithContext(ctx, method, root+path, strings.NewReader(body))
	if err != nil {
		return fmt.Errorf("testagent: mode raw-request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("testagent: mode raw-request: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("testagent: %s %s: %s: %s", method, path, strconv.Itoa(resp.StatusCode), errorMessage(b))
	}
	return nil
}

// maxTurnsOf reads TESTAGENT_MAX_TURNS: a framework's step cap (Config.MaxTurns), 0 when unset
// or not a positive number.
func maxTurnsOf(getenv func(string) string) int {
	n, err := strconv.Atoi(getenv("TESTAGENT_MAX_TURNS"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// envOf is the configuration's getenv, os.Getenv when it has none.
func envOf(cfg Config) func(string) string {
	if cfg.Env != nil {
		return cfg.Env
	}
	return os.Getenv
}
