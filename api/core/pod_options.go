package core

import (
	"net/url"
	"strconv"

	"github.com/orkit/orkit/api/meta"
)

// PodLogOptions are the options of pods/log (core/v1 PodLogOptions): which
// container, whether to follow, and how much of the log to return. The
// API server reads them from the query of a pods/log request
// (ParsePodLogOptions) and hands them to the pod's kubelet in the query of
// its containerLogs endpoint (Query), which reads them the same way. The
// zero value asks for the whole log of the pod's only container.
type PodLogOptions struct {
	meta.TypeMeta `json:",inline"`
	// Container names the container; empty means the pod's only one.
	Container string `json:"container,omitempty"`
	// Follow keeps the stream open while the container runs.
	Follow bool `json:"follow,omitempty"`
	// Previous returns the log of the container's previous run.
	Previous bool `json:"previous,omitempty"`
	// SinceSeconds returns only lines written in the last so many seconds.
	SinceSeconds *int64 `json:"sinceSeconds,omitempty"`
	// Timestamps prefixes every line with its RFC 3339 time.
	Timestamps bool `json:"timestamps,omitempty"`
	// TailLines returns only the last so many lines.
	TailLines *int64 `json:"tailLines,omitempty"`
	// LimitBytes ends the stream after so many bytes.
	LimitBytes *int64 `json:"limitBytes,omitempty"`
}

// PodExecOptions are the options of pods/exec (core/v1 PodExecOptions):
// the container, the command and which streams to attach. The API server
// reads them from the query of a pods/exec request (ParsePodExecOptions,
// the parameters named as the JSON fields) and hands them to the pod's
// kubelet in the query of its exec endpoint (KubeletQuery, the parameters
// named ExecStdinParam, ...), which reads them with ParseKubeletExecQuery.
type PodExecOptions struct {
	meta.TypeMeta `json:",inline"`
	// Stdin passes the caller's input to the command.
	Stdin bool `json:"stdin,omitempty"`
	// Stdout returns the command's standard output.
	Stdout bool `json:"stdout,omitempty"`
	// Stderr returns the command's standard error (not with TTY).
	Stderr bool `json:"stderr,omitempty"`
	// TTY runs the command on a terminal.
	TTY bool `json:"tty,omitempty"`
	// Container names the container; empty means the pod's only one.
	Container string `json:"container,omitempty"`
	// Command is the command and its arguments; at least one element.
	Command []string `json:"command"`
}

// The query parameters of the kubelet's streaming endpoints (exec, and
// attach later), as Kubernetes' core/v1 names them: the API server's
// stdin, stdout and stderr become input, output and error on the way to
// the kubelet; the container is part of the endpoint's path.
const (
	ExecStdinParam   = "input"
	ExecStdoutParam  = "output"
	ExecStderrParam  = "error"
	ExecTTYParam     = "tty"
	ExecCommandParam = "command"
)

// logIntParams are the integer parameters of PodLogOptions, by name.
func (o *PodLogOptions) logIntParams() map[string]**int64 {
	return map[string]**int64{"sinceSeconds": &o.SinceSeconds, "tailLines": &o.TailLines, "limitBytes": &o.LimitBytes}
}

// ParsePodLogOptions reads the query parameters of pods/log (and of the
// kubelet's containerLogs endpoint): container, follow, previous,
// timestamps ("true" turns a flag on), sinceSeconds, tailLines and
// limitBytes (non-negative integers). A bad value is an error matching
// ErrInvalidOptions, worded `invalid tailLines "x"`; nothing else in the
// query is looked at.
func ParsePodLogOptions(q url.Values) (PodLogOptions, error) {
	o := PodLogOptions{Container: q.Get("container"), Follow: q.Get("follow") == "true",
		Previous: q.Get("previous") == "true", Timestamps: q.Get("timestamps") == "true"}
	for name, dst := range o.logIntParams() {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return PodLogOptions{}, optionsErrorf("invalid %s %q", name, v)
		}
		*dst = &n
	}
	return o, nil
}

// Query encodes o as ParsePodLogOptions reads it; unset options are left
// out.
func (o PodLogOptions) Query() url.Values {
	q := url.Values{}
	if o.Container != "" {
		q.Set("container", o.Container)
	}
	for name, on := range map[string]bool{"follow": o.Follow, "previous": o.Previous, "timestamps": o.Timestamps} {
		if on {
			q.Set(name, "true")
		}
	}
	for name, v := range o.logIntParams() {
		if *v != nil {
			q.Set(name, strconv.FormatInt(**v, 10))
		}
	}
	return q
}

// ParsePodExecOptions reads the query parameters of pods/exec as clients
// send them: container, command (repeated), and the flags stdin, stdout,
// stderr and tty ("true" or "1"). It checks what Kubernetes checks before
// looking at the pod: at least one command word and at least one stream;
// either failure is an error matching ErrInvalidOptions, worded as
// kube-apiserver words it.
func ParsePodExecOptions(q url.Values) (PodExecOptions, error) {
	o := PodExecOptions{Container: q.Get("container"), Command: q["command"],
		Stdin: queryFlag(q, "stdin"), Stdout: queryFlag(q, "stdout"), Stderr: queryFlag(q, "stderr"), TTY: queryFlag(q, "tty")}
	return o, o.checkStreams()
}

// Query encodes o as ParsePodExecOptions reads it.
func (o PodExecOptions) Query() url.Values {
	return o.encode("stdin", "stdout", "stderr", "container")
}

// ParseKubeletExecQuery reads the query of the kubelet's exec endpoint:
// command (repeated) and the flags input, output, error and tty ("true"
// or "1"), with ParsePodExecOptions' checks. Container stays empty: the
// endpoint's path names it.
func ParseKubeletExecQuery(q url.Values) (PodExecOptions, error) {
	o := PodExecOptions{Command: q[ExecCommandParam], Stdin: queryFlag(q, ExecStdinParam),
		Stdout: queryFlag(q, ExecStdoutParam), Stderr: queryFlag(q, ExecStderrParam), TTY: queryFlag(q, ExecTTYParam)}
	return o, o.checkStreams()
}

// KubeletQuery encodes o for the kubelet's exec endpoint, as
// ParseKubeletExecQuery reads it (flags as "1", as kube-apiserver sends
// them; the container is left to the path).
func (o PodExecOptions) KubeletQuery() url.Values {
	return o.encode(ExecStdinParam, ExecStdoutParam, ExecStderrParam, "")
}

// encode writes o with the given names for the three streams and the
// container ("" leaves the container out).
func (o PodExecOptions) encode(stdin, stdout, stderr, container string) url.Values {
	q := url.Values{}
	if len(o.Command) > 0 {
		q[ExecCommandParam] = append([]string(nil), o.Command...)
	}
	if container != "" && o.Container != "" {
		q.Set(container, o.Container)
	}
	for name, on := range map[string]bool{stdin: o.Stdin, stdout: o.Stdout, stderr: o.Stderr, ExecTTYParam: o.TTY} {
		if on {
			q.Set(name, "1")
		}
	}
	return q
}

// checkStreams reports a missing command or a request for no stream.
func (o PodExecOptions) checkStreams() error {
	if len(o.Command) == 0 {
		return optionsErrorf("you must specify at least 1 command")
	}
	if !o.Stdin && !o.Stdout && !o.Stderr {
		return optionsErrorf("you must specify at least 1 of stdin, stdout, stderr")
	}
	return nil
}

func queryFlag(q url.Values, name string) bool {
	v := q.Get(name)
	return v == "true" || v == "1"
}
