// Command hello is the program of the orkit.local/hello:v1 image: by
// default an HTTP server, and a multi-call tool for exec hooks, probes and
// tests in an image without a shell.
//
// Server (no subcommand, or "serve"): listens on :8080 (env PORT
// overrides); GET / answers the hostname, /healthz answers 200, or 500 when
// HELLO_FAIL_HEALTH is set to a non-path value or names a file that exists;
// every request is logged to stdout; HELLO_EXIT_AFTER (a Go duration) makes
// it exit after that long with code HELLO_EXIT_CODE (default 0); SIGTERM or
// SIGINT end it with code 0.
//
// Subcommands, chosen by argv[1] or by the basename of argv[0]:
//
//	wget [--ca FILE] [--token-file FILE] [--timeout D] URL
//	                      print the body; exit 1 on failure or a non-2xx status
//	                      (--ca: trust only that CA; --token-file: bearer token;
//	                      --timeout: give up after D, default 10s)
//	cat FILE              print the file ("-": copy stdin to stdout until EOF)
//	write FILE TEXT       write TEXT to FILE
//	sleep DURATION        sleep (SIGTERM ends it with code 0)
//	sleep-ignore-term D   sleep D, ignoring SIGTERM
//	exit CODE             exit with CODE
//	env                   print the environment
//	ls DIR                list the directory
//	rm-dir DIR            remove the directory tree (none there is no error)
//	resolve NAME          print NAME's addresses
//	echo ARGS...          print ARGS on stdout
//	echo-err ARGS...      print ARGS on stderr
//	print TEXT            print TEXT with no newline
//	alloc MIB             allocate and touch MIB MiB, then sleep
//	tar cf - PATH...      write a tar archive of PATHs to stdout (leading "/" removed)
//	tar -xmf - [-C DIR]   extract the tar archive on stdin into DIR (kubectl cp)
//	test -d|-f|-e PATH    exit 0 when PATH is a directory, a file, or exists
//	ttysize               for each line on stdin print stdin's terminal size "ROWS COLS" (until "q")
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// termSignals receives SIGTERM and SIGINT from package initialization on,
// not only from when a command sets up its handling: as PID 1 of a
// container, a Go program that gets SIGTERM before it handles it cannot
// die from it and exits 2 instead. "sleep-ignore-term" ignores both
// signals from that moment on.
var termSignals = notifyTermEarly(os.Args)

func notifyTermEarly(argv []string) chan os.Signal {
	ch := make(chan os.Signal, 1)
	if len(argv) > 1 && argv[1] == "sleep-ignore-term" || len(argv) > 0 && filepath.Base(argv[0]) == "sleep-ignore-term" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		return ch
	}
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	return ch
}

// termContext returns a context canceled once SIGTERM or SIGINT arrives,
// including one that arrived before the call.
func termContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-termSignals:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// run dispatches to a subcommand or the server and returns the exit code.
func run(argv []string, stdout, stderr io.Writer) int {
	name, args := "serve", []string(nil)
	if len(argv) > 0 {
		if _, ok := commands[filepath.Base(argv[0])]; ok {
			name, args = filepath.Base(argv[0]), argv[1:]
		} else if len(argv) > 1 {
			name, args = argv[1], argv[2:]
		}
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "hello: unknown command %q\n", name)
		return 2
	}
	if len(args) < cmd.minArgs {
		fmt.Fprintf(stderr, "hello: usage: %s %s\n", name, cmd.usage)
		return 2
	}
	return cmd.run(args, stdout, stderr)
}

// command is one subcommand.
type command struct {
	minArgs int
	usage   string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"serve":             {0, "", func(_ []string, o, e io.Writer) int { return serve(os.Getenv, o, e) }},
	"wget":              {1, "URL", cmdWget},
	"cat":               {1, "FILE", cmdCat},
	"write":             {2, "FILE TEXT", cmdWrite},
	"sleep":             {1, "DURATION", cmdSleep},
	"sleep-ignore-term": {1, "DURATION", cmdSleepIgnoreTerm},
	"exit":              {1, "CODE", cmdExit},
	"env":               {0, "", cmdEnv},
	"ls":                {1, "DIR", cmdLs},
	"rm-dir":            {1, "DIR", cmdRmDir},
	"resolve":           {1, "NAME", cmdResolve},
	"echo":              {0, "ARGS...", cmdEcho},
	"echo-err":          {0, "ARGS...", cmdEchoErr},
	"print":             {1, "TEXT", cmdPrint},
	"alloc":             {1, "MIB", cmdAlloc},
	"ttysize":           {0, "", cmdTTYSize},
	"tar":               {1, "cf - PATH... | -xmf - [-C DIR]", cmdTar},
	"test":              {2, "-d|-f|-e PATH", cmdTest},
}
