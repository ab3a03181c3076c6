// Command sh is /bin/sh of the conformance suite's busybox stand-in
// (compat/conformance/images.sh). Upstream's busybox image runs busybox's
// ash, whose messages the specs read ("/bin/sh: can't create /file:
// Read-only file system"). Debian's busybox-static, the newest busybox
// this machine can get offline (1.35), drops environment variables whose
// names are not shell identifiers (data-1, from a ConfigMap's envFrom)
// before it runs a command, where upstream's newer busybox passes them on.
// So sh runs busybox's ash, unless the environment holds such a variable:
// then it runs Debian's bash-static (as sh: POSIX mode), which keeps them.
package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

const (
	busybox = "/bin/busybox"
	bash    = "/bin/bash"
)

func main() {
	prog, argv := choose(os.Args, os.Environ())
	err := syscall.Exec(prog, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "sh: exec %s: %v\n", prog, err)
	os.Exit(127)
}

// choose returns the shell to run for args (args[0] is how sh was called)
// in the environment env, and its argument vector.
func choose(args, env []string) (string, []string) {
	name := "sh"
	if len(args) > 0 && args[0] != "" {
		name = args[0]
	}
	rest := []string{}
	if len(args) > 1 {
		rest = args[1:]
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !identifier(k) {
			return bash, append([]string{name}, rest...)
		}
	}
	// busybox picks its applet from argv[0]'s base name, and ash names
	// itself by argv[0] in its messages ("/bin/sh: can't create ...").
	return busybox, append([]string{name}, rest...)
}

// identifier reports whether s is a shell variable name: a letter or
// underscore, then letters, digits or underscores.
func identifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
