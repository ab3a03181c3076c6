package containerd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/containerd/containerd/cio"

	"github.com/orkit/orkit/cri"
)

// MaxLogLine is the longest log line written as one entry; longer lines
// are split into partial (P) entries, as CRI does.
const MaxLogLine = 16 << 10

// logTimeFormat is RFC 3339 with a fixed nine-digit fraction.
const logTimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// Log tags.
const (
	TagFull    = "F"
	TagPartial = "P"
)

// logCopier copies one container's FIFOs to its CRI log file, and holds
// its stdin FIFO open when it has one. It ends when both streams reach
// EOF (the container exited) or on stop.
type logCopier struct {
	creator cio.Creator
	dio     *cio.DirectIO
	stdin   *stdinPipe // nil: created without Stdin (its stdin is empty)
	fan     outputFan  // attached clients (Attach)
	done    chan struct{}
	once    sync.Once
}

// stop closes the FIFOs' read ends and waits for the copiers to end.
func (lc *logCopier) stop() {
	lc.once.Do(func() { lc.dio.Close() })
	<-lc.done
}

// fifoSet returns the container's FIFO paths (stable across restarts):
// stdout, stderr without a terminal, stdin when asked for.
func (r *Runtime) fifoSet(id string, cfg cri.ContainerConfig) *cio.FIFOSet {
	dir := filepath.Join(r.cfg.stateDir, fifoDir, id)
	c := cio.Config{Stdout: filepath.Join(dir, "stdout"), Terminal: cfg.TTY}
	if !cfg.TTY {
		c.Stderr = filepath.Join(dir, "stderr")
	}
	if cfg.Stdin {
		c.Stdin = filepath.Join(dir, "stdin")
	}
	return cio.NewFIFOSet(c, nil)
}

// startLogs opens the container's FIFOs and starts copying them to its
// log file (or discarding them when it has none). The returned copier's
// creator hands the FIFOs to NewTask.
func (r *Runtime) startLogs(id string, rec containerRecord) (*logCopier, error) {
	r.mu.Lock()
	old := r.logs[id]
	r.mu.Unlock()
	if old != nil {
		old.stop()
	}
	fifos := r.fifoSet(id, rec.Config)
	if err := os.MkdirAll(filepath.Dir(fifos.Stdout), 0o700); err != nil {
		return nil, err
	}
	var out io.Writer = io.Discard
	var file *os.File
	if rec.LogPath != "" {
		if err := os.MkdirAll(filepath.Dir(rec.LogPath), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(rec.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
		if err != nil {
			return nil, err
		}
		out, file = f, f
	}
	dio, err := cio.NewDirectIO(r.ctx, fifos)
	if err != nil {
		if file != nil {
			file.Close()
		}
		return nil, err
	}
	lc := &logCopier{dio: dio, done: make(chan struct{})}
	if dio.Stdin != nil {
		lc.stdin = &stdinPipe{w: dio.Stdin, once: rec.Config.StdinOnce, closeIO: func() error { return r.closeStdin(id) }}
	}
	lc.creator = func(string) (cio.IO, error) { return dio, nil }
	var mu sync.Mutex
	var wg sync.WaitGroup
	for stream, src := range map[string]io.Reader{"stdout": dio.Stdout, "stderr": dio.Stderr} {
		if src == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			CopyLog(&lockedWriter{mu: &mu, w: out}, fanReader{r: src, fan: &lc.fan, stream: stream}, stream, time.Now)
		}()
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		lc.once.Do(func() { dio.Close() })
		wg.Wait()
		if file != nil {
			file.Close()
		}
		return nil, cri.ErrClosed
	}
	r.logs[id] = lc
	r.wg.Add(1) // under mu: Close cannot be waiting yet
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		wg.Wait()
		lc.once.Do(func() { dio.Close() })
		if file != nil {
			file.Close()
		}
		r.mu.Lock()
		if r.logs[id] == lc {
			delete(r.logs, id)
		}
		r.mu.Unlock()
		close(lc.done)
	}()
	return lc, nil
}

// stopLogs stops the container's log copier, if any.
func (r *Runtime) stopLogs(id string) {
	r.mu.Lock()
	lc := r.logs[id]
	r.mu.Unlock()
	if lc != nil {
		lc.stop()
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// CopyLog copies src to dst as CRI log entries of the stream
// ("<time> <stream> <F|P> <text>\n"): one F entry per line, lines longer
// than MaxLogLine split into P entries ending with an F entry. Text left
// at EOF without a newline is written as a P entry, as containerd does
// (readers add no newline to it). Each entry is one
// Write. It returns when src ends or fails, or dst fails.
func CopyLog(dst io.Writer, src io.Reader, stream string, now func() time.Time) {
	rd := bufio.NewReaderSize(src, MaxLogLine)
	var buf bytes.Buffer
	for {
		line, err := rd.ReadSlice('\n')
		tag := TagFull
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			tag = TagPartial
		case err == nil:
			line = line[:len(line)-1]
		default:
			// The stream ended without a newline: a partial entry, as
			// containerd writes it, so readers give back the bytes
			// without adding one (echo -n DONE logs "DONE").
			tag = TagPartial
		}
		if len(line) > 0 || err == nil {
			buf.Reset()
			buf.WriteString(now().UTC().Format(logTimeFormat))
			buf.WriteByte(' ')
			buf.WriteString(stream)
			buf.WriteByte(' ')
			buf.WriteString(tag)
			buf.WriteByte(' ')
			buf.Write(line)
			buf.WriteByte('\n')
			if _, werr := dst.Write(buf.Bytes()); werr != nil {
				io.Copy(io.Discard, rd) // keep draining so the container never blocks
				return
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// LogEntry is one parsed CRI log line.
type LogEntry struct {
	Time   time.Time
	Stream string
	// Partial is true for P entries (the line continues in the next).
	Partial bool
	Text    []byte
}

// ParseLogLine parses one CRI log line (without its newline); the error
// wraps cri.ErrInvalidArgument.
func ParseLogLine(line []byte) (LogEntry, error) {
	bad := func(why string) (LogEntry, error) {
		return LogEntry{}, fmt.Errorf("log line %.40q: %s: %w", line, why, cri.ErrInvalidArgument)
	}
	ts, rest, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return bad("no timestamp")
	}
	t, err := time.Parse(time.RFC3339Nano, string(ts))
	if err != nil {
		return bad("bad timestamp")
	}
	stream, rest, ok := bytes.Cut(rest, []byte{' '})
	if !ok || (string(stream) != "stdout" && string(stream) != "stderr") {
		return bad("bad stream")
	}
	tag, text, ok := bytes.Cut(rest, []byte{' '})
	if !ok {
		// An empty line may be written without the trailing space.
		tag, text = rest, nil
	}
	if string(tag) != TagFull && string(tag) != TagPartial {
		return bad("bad tag")
	}
	return LogEntry{Time: t, Stream: string(stream), Partial: string(tag) == TagPartial, Text: text}, nil
}
