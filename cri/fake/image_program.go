package fake

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/orkit/orkit/cri"
)

// ImageProgram is a ProgramFunc for simulated nodes that run any image, as
// a kwok node does: a container is a server that runs until stopped unless
// its command is one whose end is plain from the command line alone.
//
//   - the bundled orkit.local/hello image (or a "hello" entrypoint) keeps
//     the hello tool's model (the default ProgramFunc);
//   - "sleep N" (busybox's: seconds, or with an s/m/h/d suffix) exits 0
//     after N, "sleep infinity" never; "true" and ":" exit 0, "false" 1;
//   - "sh -c SCRIPT" (also bash, ash, /bin/sh, -ec) whose SCRIPT is one of
//     those commands, or "exit N", ends as it would;
//   - anything else (agnhost pause, netexec, test-webserver, httpd, nginx,
//     an image's own entrypoint, a script it cannot read) runs until
//     stopped, exiting 0 on SIGTERM.
//
// It never reads files or environment, so scripts that branch on them are
// modelled as servers. Safe for concurrent use (it keeps no state).
func ImageProgram(cfg cri.ContainerConfig) Program {
	if isHelloImage(cfg) {
		return helloProgram(cfg)
	}
	argv := append(append([]string(nil), cfg.Command...), cfg.Args...)
	if p, ok := commandProgram(argv); ok {
		return p
	}
	return Program{}
}

// isHelloImage reports whether cfg runs the bundled hello tool.
func isHelloImage(cfg cri.ContainerConfig) bool {
	if strings.Contains(cfg.Image.Image, "orkit.local/hello") {
		return true
	}
	return len(cfg.Command) > 0 && path.Base(cfg.Command[0]) == "hello"
}

// shells are the shells whose -c script commandProgram reads.
var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true}

// commandProgram models argv when its end is plain; ok is false for a
// server (or a command it cannot read).
func commandProgram(argv []string) (Program, bool) {
	if len(argv) == 0 {
		return Program{}, false
	}
	switch base := path.Base(argv[0]); {
	case base == "true" || base == ":":
		return Program{ExitNow: true}, true
	case base == "false":
		return Program{ExitNow: true, ExitCode: 1}, true
	case base == "sleep":
		return sleepProgram(argv[1:])
	case shells[base]:
		if len(argv) >= 3 && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
			return scriptProgram(argv[2])
		}
	}
	return Program{}, false
}

// exitScript matches a script that is a single "exit N".
var exitScript = regexp.MustCompile(`^exit\s+([0-9]{1,3})$`)

// scriptProgram models a shell script that is a single command.
func scriptProgram(script string) (Program, bool) {
	script = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(script), ";"))
	if m := exitScript.FindStringSubmatch(script); m != nil {
		code, _ := strconv.Atoi(m[1])
		return Program{ExitNow: true, ExitCode: int32(code % 256)}, true
	}
	if script == "exit" {
		return Program{ExitNow: true}, true
	}
	if strings.ContainsAny(script, ";&|$`<>()\n") {
		return Program{}, false
	}
	return commandProgram(strings.Fields(script))
}

// sleepProgram models busybox sleep: one duration, seconds by default.
func sleepProgram(args []string) (Program, bool) {
	if len(args) != 1 {
		return Program{}, false
	}
	if args[0] == "infinity" {
		return Program{}, true
	}
	d, ok := busyboxDuration(args[0])
	if !ok {
		return Program{ExitNow: true, ExitCode: 1}, true // sleep: invalid number
	}
	if d == 0 {
		return Program{ExitNow: true}, true
	}
	return Program{ExitAfter: d}, true
}

// busyboxDuration parses N[smhd] (N may have a fraction).
func busyboxDuration(s string) (time.Duration, bool) {
	unit := time.Second
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			s = s[:n-1]
		case 'm':
			unit, s = time.Minute, s[:n-1]
		case 'h':
			unit, s = time.Hour, s[:n-1]
		case 'd':
			unit, s = 24*time.Hour, s[:n-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f <= 1e9) { // also NaN
		return 0, false
	}
	return time.Duration(f * float64(unit)), true
}
