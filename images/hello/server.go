package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serve runs the HTTP server until SIGTERM/SIGINT (code 0) or
// HELLO_EXIT_AFTER (code HELLO_EXIT_CODE).
func serve(getenv func(string) string, stdout, stderr io.Writer) int {
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	exitAfter, exitCode, err := exitPlan(getenv)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ln, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return fail(stderr, "listen: %v", err)
	}
	ctx, stop := termContext()
	defer stop()
	code := 0
	if exitAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, exitAfter)
		defer cancel()
	}
	srv := &http.Server{Handler: newHandler(getenv, stdout), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 90 * time.Second}
	fmt.Fprintf(stdout, "hello: listening on %s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail(stderr, "serve: %v", err)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = exitCode
		fmt.Fprintf(stdout, "hello: exiting after %s with code %d\n", exitAfter, code)
	}
	return code
}

// exitPlan reads HELLO_EXIT_AFTER and HELLO_EXIT_CODE.
func exitPlan(getenv func(string) string) (time.Duration, int, error) {
	var after time.Duration
	if s := getenv("HELLO_EXIT_AFTER"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, 0, fmt.Errorf("HELLO_EXIT_AFTER %q is not a positive duration", s)
		}
		after = d
	}
	code := 0
	if s := getenv("HELLO_EXIT_CODE"); s != "" {
		c, err := strconv.Atoi(s)
		if err != nil || c < 0 || c > 255 {
			return 0, 0, fmt.Errorf("HELLO_EXIT_CODE %q is not in 0..255", s)
		}
		code = c
	}
	return after, code, nil
}

// newHandler returns the server's routes; every request is logged to out.
func newHandler(getenv func(string) string, out io.Writer) http.Handler {
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if unhealthy(getenv("HELLO_FAIL_HEALTH")) {
			http.Error(w, "unhealthy", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		host, _ := os.Hostname()
		fmt.Fprintln(w, host)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fmt.Fprintf(out, "%s %s %s from %s\n", r.Method, r.URL.RequestURI(), r.Proto, r.RemoteAddr)
		mu.Unlock()
		mux.ServeHTTP(w, r)
	})
}

// unhealthy interprets HELLO_FAIL_HEALTH: an absolute path fails while the
// file exists; any other non-empty value always fails.
func unhealthy(v string) bool {
	if v == "" {
		return false
	}
	if strings.HasPrefix(v, "/") {
		_, err := os.Stat(v)
		return err == nil
	}
	return true
}
