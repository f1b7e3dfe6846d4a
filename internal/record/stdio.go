package record

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/result"
)

// StdioOptions are what `contractcheck record stdio` runs: the MCP server command, whose
// standard input and output it relays between the agent (its own standard input and output)
// and the server byte for byte, and the recorder it copies the messages to.
type StdioOptions struct {
	// To is the recorder's stdio URL (Endpoints.Stdio).
	To string
	// Command is the MCP server's argv.
	Command []string
	// Stdin, Stdout and Stderr are the agent's side (os.Stdin, os.Stdout, os.Stderr when nil);
	// the server's standard error goes to Stderr.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// stdioQueue is the number of messages the relay holds for the recorder: a full queue makes the
// relay wait (a message is never dropped). The messages queued also hold at most the largest
// message copied (a share of the relay's --memory-budget, as the recorder's) together.
const stdioQueue = 1024

// Stdio relays the agent's stdio to the MCP server's and copies every newline-delimited message
// to the recorder. It returns when the server has exited and everything is relayed and posted;
// the exit code is the server's. A recorder that cannot be reached is said on Stderr (loudly,
// once) and the relay goes on: the agent's server keeps working.
func Stdio(ctx context.Context, o StdioOptions) (int, error) {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if len(o.Command) == 0 {
		return 2, result.Inputf("record stdio: give the MCP server command after --")
	}
	if o.To == "" {
		return 2, result.Inputf("record stdio: --to is required (the URL contractcheck record printed)")
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Stderr = o.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 3, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 3, err
	}
	if err := cmd.Start(); err != nil {
		return 2, fmt.Errorf("record stdio: start the MCP server: %w", err)
	}
	limit := int(min(int64(MaxMessageBytes), guard.LimitsOf(ctx).Memory/messageShareDiv))
	p := &poster{to: o.To, sid: newToken(), queue: make(chan frame, stdioQueue), stderr: o.Stderr, done: make(chan struct{}), limit: limit, maxQueued: limit}
	p.drained = sync.NewCond(&p.qmu)
	p.post("open", nil)
	go p.run()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the agent → the server; the server's stdin closes when the agent's does
		defer wg.Done()
		relay(o.Stdin, in, 'c', p)
		in.Close()
	}()
	relay(out, o.Stdout, 's', p) // the server → the agent, until the server closes its stdout
	werr := cmd.Wait()
	// The agent's side may stay open after the server is gone; what it sent is relayed already.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
	}
	p.mu.Lock()
	p.closed = true
	close(p.queue)
	p.mu.Unlock()
	<-p.done
	p.post("close", nil)
	code := 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return 3, fmt.Errorf("record stdio: the MCP server: %w", werr)
		}
		code = ee.ExitCode()
	}
	return code, nil
}

// frame is one message for the recorder.
type frame struct {
	dir byte
	msg []byte
}

// relay copies src to dst as it comes and hands every complete line to the poster.
func relay(src io.Reader, dst io.Writer, dir byte, p *poster) {
	buf := make([]byte, 64<<10)
	var line []byte
	over := false
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// The chunk's complete messages are queued before the chunk is passed on: the
			// recorder has a request before the server can answer it.
			chunk := buf[:n]
			for len(chunk) > 0 {
				i := bytes.IndexByte(chunk, '\n')
				part := chunk
				if i >= 0 {
					part = chunk[:i]
				}
				if len(line)+len(part) > p.limit {
					over, line = true, line[:0]
				} else if !over {
					line = append(line, part...)
				}
				if i < 0 {
					break
				}
				switch {
				case over:
					p.enqueue(frame{dir: 'x'})
				case len(bytes.TrimSpace(line)) > 0:
					p.enqueue(frame{dir: dir, msg: bytes.Clone(line)})
				}
				line, over = line[:0], false
				if cap(line) > spoolAt {
					line = nil // a large message's buffer is not kept
				}
				chunk = chunk[i+1:]
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if f, ok := dst.(interface{ Flush() error }); ok {
				_ = f.Flush()
			}
		}
		if err != nil {
			if len(bytes.TrimSpace(line)) > 0 && !over {
				p.enqueue(frame{dir: dir, msg: bytes.Clone(line)})
			}
			return
		}
	}
}

// poster posts the frames to the recorder in batches.
type poster struct {
	to, sid string
	queue   chan frame
	stderr  io.Writer
	done    chan struct{}
	failed  bool
	limit   int // the largest message copied

	mu     sync.RWMutex
	closed bool

	qmu       sync.Mutex
	drained   *sync.Cond
	queued    int // bytes of the messages queued and not posted yet
	maxQueued int
}

// enqueue hands a frame to the poster, waiting while the queue is full; after the relay ended
// (the server is gone) a late frame of the agent's is dropped with the session.
func (p *poster) enqueue(f frame) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return
	}
	p.qmu.Lock()
	for p.queued > 0 && p.queued+len(f.msg) > p.maxQueued {
		p.drained.Wait()
	}
	p.queued += len(f.msg)
	p.qmu.Unlock()
	p.queue <- f
}

func (p *poster) run() {
	defer close(p.done)
	var batch bytes.Buffer
	for f := range p.queue {
		batch.Reset()
		n := 0
		add := func(f frame) {
			n += len(f.msg)
			var hdr [5]byte
			hdr[0] = f.dir
			binary.BigEndian.PutUint32(hdr[1:], uint32(len(f.msg)))
			batch.Write(hdr[:])
			batch.Write(f.msg)
		}
		add(f)
	more:
		for batch.Len() < 4<<20 {
			select {
			case f, ok := <-p.queue:
				if !ok {
					break more
				}
				add(f)
			default:
				break more
			}
		}
		p.post("data", batch.Bytes())
		p.qmu.Lock()
		p.queued -= n
		p.drained.Broadcast()
		p.qmu.Unlock()
		if batch.Cap() > 8<<20 {
			batch = bytes.Buffer{} // a large message's buffer is not kept
		}
	}
}

// post sends one request to the recorder; a failure is said once.
func (p *poster) post(ev string, body []byte) {
	req, err := http.NewRequest(http.MethodPost, p.to, bytes.NewReader(body))
	if err == nil {
		req.Header.Set(headerSession, p.sid)
		req.Header.Set(headerEvent, ev)
		req.Header.Set("Content-Type", "application/octet-stream")
		var resp *http.Response
		resp, err = http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				err = fmt.Errorf("%s", resp.Status)
			}
		}
	}
	if err != nil && !p.failed {
		p.failed = true
		fmt.Fprintf(p.stderr, "contractcheck record stdio: the recorder at %s did not take the messages (%v): this session is NOT recorded; the server keeps running\n", redactURL(p.to), err)
	}
}
