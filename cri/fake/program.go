package fake

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/orkit/orkit/cri"
)

// helloSubcommands are the multi-call names of the bundled hello tool.
var helloSubcommands = map[string]bool{
	"serve": true, "wget": true, "cat": true, "write": true, "sleep": true, "sleep-ignore-term": true,
	"exit": true, "env": true, "ls": true, "resolve": true, "echo": true, "echo-err": true, "print": true,
	"alloc": true, "ttysize": true, "rm-dir": true,
}

// helloArgv splits a command line as the hello tool dispatches it: the
// subcommand is argv[0]'s base name if that is one, else argv[1], else
// "serve". With no command the image's entrypoint (the tool) is assumed.
func helloArgv(argv []string) (sub string, args []string) {
	if len(argv) > 0 && helloSubcommands[path.Base(argv[0])] {
		return path.Base(argv[0]), argv[1:]
	}
	if len(argv) > 1 {
		return argv[1], argv[2:]
	}
	return "serve", nil
}

// helloProgram is the default ProgramFunc: the hello tool's behaviour as a
// container's main process.
func helloProgram(cfg cri.ContainerConfig) Program {
	argv := cfg.Command
	if len(argv) == 0 {
		argv = append([]string{"/hello"}, cfg.Args...)
	} else {
		argv = append(append([]string(nil), argv...), cfg.Args...)
	}
	sub, args := helloArgv(argv)
	switch sub {
	case "serve":
		p := Program{}
		env := map[string]string{}
		for _, kv := range cfg.Envs {
			env[kv.Key] = kv.Value
		}
		if d, err := time.ParseDuration(env["HELLO_EXIT_AFTER"]); err == nil && d > 0 {
			p.ExitAfter = d
			if code, err := strconv.ParseInt(env["HELLO_EXIT_CODE"], 10, 32); err == nil {
				p.ExitCode = int32(code)
			}
		}
		return p
	case "exit":
		code, err := strconv.ParseInt(firstArg(args), 10, 32)
		if err != nil {
			return Program{ExitNow: true, ExitCode: 2}
		}
		return Program{ExitNow: true, ExitCode: int32(code)}
	case "sleep", "sleep-ignore-term", "alloc":
		d, err := time.ParseDuration(firstArg(args))
		if sub == "alloc" {
			d, err = 0, nil // allocates, then sleeps forever
		}
		if err != nil {
			return Program{ExitNow: true, ExitCode: 2}
		}
		return Program{ExitAfter: d, IgnoreSIGTERM: sub == "sleep-ignore-term"}
	case "echo", "echo-err", "print", "env", "ls", "cat", "write", "resolve", "wget", "rm-dir":
		return Program{ExitNow: true}
	default:
		return Program{ExitNow: true, ExitCode: 2}
	}
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// helloExec is the default ExecFunc: the hello tool's echo, echo-err,
// print, env, exit and sleep; other subcommands exit 2 as unknown.
func helloExec(ctx context.Context, cfg cri.ContainerConfig, cmd []string, timeout time.Duration) (cri.ExecResult, error) {
	sub, args := helloArgv(cmd)
	switch sub {
	case "echo":
		return cri.ExecResult{Stdout: []byte(strings.Join(args, " ") + "\n")}, nil
	case "echo-err":
		return cri.ExecResult{Stderr: []byte(strings.Join(args, " ") + "\n")}, nil
	case "print":
		return cri.ExecResult{Stdout: []byte(firstArg(args))}, nil
	case "env":
		var b strings.Builder
		for _, kv := range cfg.Envs {
			fmt.Fprintf(&b, "%s=%s\n", kv.Key, kv.Value)
		}
		return cri.ExecResult{Stdout: []byte(b.String())}, nil
	case "exit":
		code, err := strconv.ParseInt(firstArg(args), 10, 32)
		if err != nil {
			return cri.ExecResult{Stderr: []byte("hello: exit: bad code\n"), ExitCode: 2}, nil
		}
		return cri.ExecResult{ExitCode: int32(code)}, nil
	case "sleep", "sleep-ignore-term":
		d, err := time.ParseDuration(firstArg(args))
		if err != nil {
			return cri.ExecResult{Stderr: []byte("hello: sleep: bad duration\n"), ExitCode: 2}, nil
		}
		return sleepExec(ctx, d, timeout)
	default:
		return cri.ExecResult{Stderr: []byte(fmt.Sprintf("hello: unknown command %q\n", sub)), ExitCode: 2}, nil
	}
}

// sleepExec waits d, or fails with cri.ErrTimeout once timeout (> 0) has
// passed, or with ctx's error.
func sleepExec(ctx context.Context, d, timeout time.Duration) (cri.ExecResult, error) {
	wait, timedOut := d, false
	if timeout > 0 && timeout < d {
		wait, timedOut = timeout, true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return cri.ExecResult{}, ctx.Err()
	case <-t.C:
	}
	if timedOut {
		return cri.ExecResult{}, fmt.Errorf("command did not finish in %s: %w", timeout, cri.ErrTimeout)
	}
	return cri.ExecResult{}, nil
}
