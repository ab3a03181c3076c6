package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func fail(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "hello: "+format+"\n", a...)
	return 1
}

func cmdWget(args []string, stdout, stderr io.Writer) int {
	tr := &http.Transport{}
	var token string
	timeout := 10 * time.Second
	for len(args) > 1 && strings.HasPrefix(args[0], "--") {
		flag, val := args[0], args[1]
		args = args[2:]
		switch flag {
		case "--ca": // trust only this CA (PEM), as an in-cluster client does
			pem, err := os.ReadFile(val)
			if err != nil {
				return fail(stderr, "wget: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return fail(stderr, "wget: %s: no certificate", val)
			}
			tr.TLSClientConfig = &tls.Config{RootCAs: pool}
		case "--timeout": // give up after this long (a Go duration)
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return fail(stderr, "wget: --timeout %q: want a positive duration such as 2s", val)
			}
			timeout = d
		case "--token-file": // send the file's content as a bearer token
			b, err := os.ReadFile(val)
			if err != nil {
				return fail(stderr, "wget: %v", err)
			}
			token = strings.TrimSpace(string(b))
		default:
			return fail(stderr, "wget: unknown flag %s", flag)
		}
	}
	if len(args) != 1 {
		return fail(stderr, "wget: usage: wget [--ca FILE] [--token-file FILE] [--timeout D] URL")
	}
	req, err := http.NewRequest(http.MethodGet, args[0], nil)
	if err != nil {
		return fail(stderr, "wget: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: timeout, Transport: tr}
	resp, err := c.Do(req)
	if err != nil {
		return fail(stderr, "wget: %v", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(stdout, resp.Body); err != nil {
		return fail(stderr, "wget: read body: %v", err)
	}
	if resp.StatusCode/100 != 2 {
		return fail(stderr, "wget: %s: status %s", args[0], resp.Status)
	}
	return 0
}

func cmdCat(args []string, stdout, stderr io.Writer) int {
	var f io.ReadCloser = os.Stdin
	if args[0] != "-" {
		var err error
		if f, err = os.Open(args[0]); err != nil {
			return fail(stderr, "cat: %v", err)
		}
	}
	defer f.Close()
	if _, err := io.Copy(stdout, f); err != nil {
		return fail(stderr, "cat: %v", err)
	}
	return 0
}

func cmdWrite(args []string, _, stderr io.Writer) int {
	if err := os.WriteFile(args[0], []byte(strings.Join(args[1:], " ")), 0o644); err != nil {
		return fail(stderr, "write: %v", err)
	}
	return 0
}

func cmdSleep(args []string, _, stderr io.Writer) int {
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return fail(stderr, "sleep: %v", err)
	}
	ctx, stop := termContext()
	defer stop()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return 0
}

func cmdSleepIgnoreTerm(args []string, stdout, stderr io.Writer) int {
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return fail(stderr, "sleep-ignore-term: %v", err)
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	fmt.Fprintln(stdout, "ignoring SIGTERM")
	time.Sleep(d)
	return 0
}

func cmdExit(args []string, _, stderr io.Writer) int {
	code, err := strconv.Atoi(args[0])
	if err != nil || code < 0 || code > 255 {
		return fail(stderr, "exit: bad code %q", args[0])
	}
	return code
}

func cmdEnv(_ []string, stdout, _ io.Writer) int {
	env := os.Environ()
	sort.Strings(env)
	for _, kv := range env {
		fmt.Fprintln(stdout, kv)
	}
	return 0
}

func cmdLs(args []string, stdout, stderr io.Writer) int {
	entries, err := os.ReadDir(args[0])
	if err != nil {
		return fail(stderr, "ls: %v", err)
	}
	for _, e := range entries {
		fmt.Fprintln(stdout, e.Name())
	}
	return 0
}

// cmdRmDir removes a directory tree (the local-path provisioner's
// cleanup); a path that is not a directory is refused.
func cmdRmDir(args []string, _, stderr io.Writer) int {
	fi, err := os.Lstat(args[0])
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		return fail(stderr, "rm-dir: %v", err)
	}
	if !fi.IsDir() {
		return fail(stderr, "rm-dir: %s is not a directory", args[0])
	}
	if err := os.RemoveAll(args[0]); err != nil {
		return fail(stderr, "rm-dir: %v", err)
	}
	return 0
}

func cmdResolve(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, args[0])
	if err != nil {
		return fail(stderr, "resolve: %v", err)
	}
	for _, a := range addrs {
		fmt.Fprintln(stdout, a)
	}
	return 0
}

func cmdEcho(args []string, stdout, _ io.Writer) int {
	fmt.Fprintln(stdout, strings.Join(args, " "))
	return 0
}

func cmdEchoErr(args []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, strings.Join(args, " "))
	return 0
}

func cmdPrint(args []string, stdout, _ io.Writer) int {
	fmt.Fprint(stdout, strings.Join(args, " "))
	return 0
}

// cmdAlloc allocates MIB mebibytes, touching every page so that they count
// against the memory cgroup, then sleeps: under a smaller limit the OOM
// killer ends it.
func cmdAlloc(args []string, stdout, stderr io.Writer) int {
	mib, err := strconv.Atoi(args[0])
	if err != nil || mib < 0 {
		return fail(stderr, "alloc: bad size %q", args[0])
	}
	chunks := make([][]byte, 0, mib)
	for i := 0; i < mib; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		chunks = append(chunks, b)
	}
	fmt.Fprintf(stdout, "allocated %d MiB\n", len(chunks))
	return cmdSleep([]string{"1h"}, stdout, stderr)
}

// cmdTTYSize answers each line read from stdin with stdin's terminal size
// (exec resize tests), until EOF or a line "q".
func cmdTTYSize(_ []string, stdout, stderr io.Writer) int {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() && sc.Text() != "q" {
		ws, err := unix.IoctlGetWinsize(int(os.Stdin.Fd()), unix.TIOCGWINSZ)
		if err != nil {
			return fail(stderr, "ttysize: %v", err)
		}
		fmt.Fprintf(stdout, "%d %d\n", ws.Row, ws.Col)
	}
	return 0
}
