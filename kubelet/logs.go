package kubelet

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/serving"
)

// maxLogLine bounds one CRI log line read back.
const maxLogLine = 1 << 20

// followPoll is how often a followed log file is checked for new data,
// followCheck how often the runtime is asked whether the container still
// runs (a stopped container's log ends the stream once read to the end).
const (
	followPoll  = 100 * time.Millisecond
	followCheck = time.Second
)

// startLogServer serves /containerLogs/{ns}/{pod}/{container},
// /exec/{ns}/{pod}/{container} (exec.go), /attach/{ns}/{pod}/{container}
// (attach.go), /portForward/{ns}/{pod} (portforward.go) and /stats/summary
// (stats.go) over HTTPS, to the API server
// only (client certificate from ClientCA with CN
// APIServerClientCN). The server belongs to Run, which shuts it down.
func (k *Kubelet) startLogServer(ctx context.Context) (*http.Server, error) {
	ln, err := listenTCP(k.cfg.ServerAddr)
	if err != nil {
		return nil, fmt.Errorf("kubelet server: %w", err)
	}
	k.logServerPort.Store(int32(ln.Addr().(*net.TCPAddr).Port))
	tc := &tls.Config{ClientCAs: k.cfg.ClientCA, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
		GetCertificate: k.cfg.GetServingCertificate}
	if k.cfg.ServingCert != nil {
		tc.Certificates = []tls.Certificate{*k.cfg.ServingCert}
	}
	srv := k.cfg.Serving.HTTPServer(http.HandlerFunc(k.serveHTTP), tc, slog.NewLogLogger(k.cfg.Logger.Handler(), slog.LevelDebug))
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	guard := serving.NewGuard(ln, k.cfg.Serving)
	guard.Attach(srv)
	k.goRun(func() {
		if err := srv.ServeTLS(guard, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			k.cfg.Logger.Warn("kubelet server", "err", err)
		}
	})
	return srv, nil
}

// ServerPort returns the port the log server listens on (0 before Run).
func (k *Kubelet) ServerPort() int { return int(k.logServerPort.Load()) }

func (k *Kubelet) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName != APIServerClientCN {
		http.Error(w, "forbidden: only the API server may call the kubelet", http.StatusForbidden)
		return
	}
	serving.Authenticated(r.Context())
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if r.Method == http.MethodGet && r.URL.Path == "/stats/summary" {
		k.serveSummary(w, r)
		return
	}
	if len(parts) == 4 && parts[0] == "exec" {
		k.serveExec(w, r, parts[1], parts[2], parts[3])
		return
	}
	if len(parts) == 4 && parts[0] == "attach" {
		k.serveAttach(w, r, parts[1], parts[2], parts[3])
		return
	}
	if len(parts) == 3 && parts[0] == "portForward" {
		k.servePortForward(w, r, parts[1], parts[2])
		return
	}
	if r.Method != http.MethodGet || len(parts) != 4 || parts[0] != "containerLogs" {
		http.NotFound(w, r)
		return
	}
	opts, err := parseLogOptions(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	opts.Container = parts[3]
	path, running, err := k.logPath(parts[1], parts[2], opts.Container, opts.Previous)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fw := flushWriter{w: w}
	if f, ok := w.(http.Flusher); ok {
		fw.f = f
	}
	if err := copyCRILog(r.Context(), path, opts, fw, running); err != nil && r.Context().Err() == nil {
		k.cfg.Logger.Info("serve logs", "path", path, "err", err)
	}
}

type flushWriter struct {
	w io.Writer
	f http.Flusher
}

// Write writes p and flushes it to the client at once (for follow).
func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if f.f != nil {
		f.f.Flush()
	}
	return n, err
}

func parseLogOptions(q url.Values) (core.PodLogOptions, error) {
	o, err := core.ParsePodLogOptions(q)
	if err != nil {
		return o, fmt.Errorf("%w: %w", ErrLogs, err)
	}
	return o, nil
}

// logPath finds the log file of a container of a pod this kubelet runs,
// and a func reporting whether that container still runs.
func (k *Kubelet) logPath(ns, name, container string, previous bool) (string, func() bool, error) {
	pod := k.podByName(ns, name)
	if pod == nil || k.cfg.LogDir == "" {
		return "", nil, fmt.Errorf("%w: pod %s/%s is not on this node", ErrLogs, ns, name)
	}
	if !hasContainer(pod, container) {
		return "", nil, fmt.Errorf("%w: container %q is not in pod %s/%s", ErrLogs, container, ns, name)
	}
	dir := filepath.Join(k.podLogDir(pod), container)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("%w: container %q of pod %s/%s has no logs", ErrLogs, container, ns, name)
	}
	attempts := []int{}
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".log")); err == nil {
			attempts = append(attempts, n)
		}
	}
	if len(attempts) == 0 {
		return "", nil, fmt.Errorf("%w: container %q of pod %s/%s has no logs", ErrLogs, container, ns, name)
	}
	latest := attempts[0]
	for _, a := range attempts {
		latest = max(latest, a)
	}
	if previous {
		if latest == 0 {
			return "", nil, fmt.Errorf("%w: previous terminated container %q in pod %q not found", ErrLogs, container, name)
		}
		latest--
	}
	path := filepath.Join(dir, strconv.Itoa(latest)+".log")
	running := func() bool {
		if previous {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ctrs, err := k.cfg.Runtime.ListContainers(ctx, cri.ContainerFilter{State: cri.ContainerRunning,
			LabelSelector: map[string]string{labelPodUID: string(pod.UID), labelContainerName: container}})
		return err == nil && len(ctrs) > 0
	}
	return path, running, nil
}

// podByName returns the latest spec of the pod ns/name this kubelet runs,
// or nil.
func (k *Kubelet) podByName(ns, name string) *core.Pod {
	k.mu.Lock()
	var w *podWorker
	for _, cand := range k.workers {
		if p, _ := cand.latest(); p.Namespace == ns && p.Name == name {
			w = cand
		}
	}
	k.mu.Unlock()
	if w == nil {
		return nil
	}
	pod, _ := w.latest()
	return pod
}

func hasContainer(pod *core.Pod, name string) bool {
	for _, list := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			if c.Name == name {
				return true
			}
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// logLine is one parsed CRI log line: "<time> <stream> <P|F> <content>".
type logLine struct {
	ts      time.Time
	stream  string
	partial bool
	content []byte
}

func parseCRILogLine(b []byte) (logLine, error) {
	var l logLine
	f := bytes.SplitN(b, []byte(" "), 4)
	if len(f) < 3 {
		return l, fmt.Errorf("%w: malformed CRI log line", ErrLogs)
	}
	t, err := time.Parse(time.RFC3339Nano, string(f[0]))
	if err != nil {
		return l, fmt.Errorf("%w: bad timestamp in CRI log line: %w", ErrLogs, err)
	}
	l.ts, l.stream = t, string(f[1])
	if l.stream != "stdout" && l.stream != "stderr" {
		return l, fmt.Errorf("%w: bad stream %q in CRI log line", ErrLogs, l.stream)
	}
	switch string(f[2]) {
	case "P":
		l.partial = true
	case "F":
	default:
		return l, fmt.Errorf("%w: bad tag %q in CRI log line", ErrLogs, f[2])
	}
	if len(f) == 4 {
		l.content = f[3]
	}
	return l, nil
}

// copyCRILog writes the log at path to w as kubectl logs shows it, applying
// tailLines, sinceSeconds, timestamps and limitBytes; with follow it keeps
// reading new lines while running() reports the container runs.
func copyCRILog(ctx context.Context, path string, o core.PodLogOptions, w io.Writer, running func() bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLogs, err)
	}
	defer f.Close()
	if o.TailLines != nil {
		if err := seekTail(f, *o.TailLines); err != nil {
			return err
		}
	}
	var limit int64 = -1
	if o.LimitBytes != nil {
		limit = *o.LimitBytes
	}
	var since time.Time
	if o.SinceSeconds != nil {
		since = time.Now().Add(-time.Duration(*o.SinceSeconds) * time.Second)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var pending []byte
	var lastCheck time.Time // when running() last said yes
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = append(pending, line[:len(line)-1]...)
			pending = nil
			if len(line) > maxLogLine {
				line = line[:maxLogLine]
			}
			l, perr := parseCRILogLine(line)
			if perr == nil && !l.ts.Before(since) {
				out := l.content
				if !l.partial {
					out = append(out, '\n')
				}
				if o.Timestamps {
					out = append([]byte(l.ts.Format(time.RFC3339Nano)+" "), out...)
				}
				if limit >= 0 && int64(len(out)) > limit {
					out = out[:limit]
				}
				if _, werr := w.Write(out); werr != nil {
					return werr
				}
				if limit >= 0 {
					if limit -= int64(len(out)); limit == 0 {
						return nil
					}
				}
			}
			continue
		} else if len(line) > 0 {
			pending = append(pending, line...)
		}
		if err != io.EOF {
			return err
		}
		if !o.Follow {
			return nil
		}
		if time.Since(lastCheck) >= followCheck {
			if !running() {
				return nil
			}
			lastCheck = time.Now()
		}
		t := time.NewTimer(followPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// seekTail positions f at the start of its last n lines.
func seekTail(f *os.File, n int64) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if n == 0 {
		_, err := f.Seek(size, io.SeekStart)
		return err
	}
	const chunk = 32 << 10
	pos, count := size, int64(0)
	buf := make([]byte, chunk)
	for pos > 0 {
		step := min(int64(chunk), pos)
		pos -= step
		if _, err := f.ReadAt(buf[:step], pos); err != nil && err != io.EOF {
			return err
		}
		for i := step - 1; i >= 0; i-- {
			if buf[i] != '\n' || pos+i == size-1 {
				continue
			}
			if count++; count == n {
				_, err := f.Seek(pos+i+1, io.SeekStart)
				return err
			}
		}
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}
