package core

import (
	"net/url"
	"strconv"

	"github.com/orkit/orkit/api/meta"
)

// PodAttachOptions are the options of pods/attach (core/v1
// PodAttachOptions): which streams of the container's main process to
// attach to. The API server reads them from the query
// (ParsePodAttachOptions) and hands them to the kubelet's attach endpoint
// (KubeletQuery, read back with ParseKubeletAttachQuery), named as for
// exec.
type PodAttachOptions struct {
	meta.TypeMeta `json:",inline"`
	// Stdin passes the caller's input to the container's stdin (the
	// container must have been created with stdin: true).
	Stdin bool `json:"stdin,omitempty"`
	// Stdout returns the container's standard output from now on.
	Stdout bool `json:"stdout,omitempty"`
	// Stderr returns its standard error (not with TTY).
	Stderr bool `json:"stderr,omitempty"`
	// TTY: the container runs on a terminal (resizes are passed on).
	TTY bool `json:"tty,omitempty"`
	// Container names the container; empty means the pod's only one.
	Container string `json:"container,omitempty"`
}

// ParsePodAttachOptions reads the query of pods/attach: container and
// the flags stdin, stdout, stderr and tty ("true" or "1"); at least one
// stream must be asked for (ErrInvalidOptions, kube-apiserver's words).
func ParsePodAttachOptions(q url.Values) (PodAttachOptions, error) {
	o := PodAttachOptions{Container: q.Get("container"), Stdin: queryFlag(q, "stdin"),
		Stdout: queryFlag(q, "stdout"), Stderr: queryFlag(q, "stderr"), TTY: queryFlag(q, "tty")}
	return o, o.checkStreams()
}

// ParseKubeletAttachQuery reads the query of the kubelet's attach
// endpoint (input, output, error, tty), with ParsePodAttachOptions'
// checks; the container is named by the endpoint's path.
func ParseKubeletAttachQuery(q url.Values) (PodAttachOptions, error) {
	o := PodAttachOptions{Stdin: queryFlag(q, ExecStdinParam), Stdout: queryFlag(q, ExecStdoutParam),
		Stderr: queryFlag(q, ExecStderrParam), TTY: queryFlag(q, ExecTTYParam)}
	return o, o.checkStreams()
}

// Query encodes o as ParsePodAttachOptions reads it.
func (o PodAttachOptions) Query() url.Values {
	return o.exec().encode("stdin", "stdout", "stderr", "container")
}

// KubeletQuery encodes o for the kubelet's attach endpoint.
func (o PodAttachOptions) KubeletQuery() url.Values {
	return o.exec().encode(ExecStdinParam, ExecStdoutParam, ExecStderrParam, "")
}

func (o PodAttachOptions) exec() PodExecOptions {
	return PodExecOptions{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, TTY: o.TTY, Container: o.Container}
}

func (o PodAttachOptions) checkStreams() error {
	if !o.Stdin && !o.Stdout && !o.Stderr {
		return optionsErrorf("you must specify at least 1 of stdin, stdout, stderr")
	}
	return nil
}

// PodPortForwardOptions are the options of pods/portforward (core/v1
// PodPortForwardOptions): the ports a client means to forward. Clients
// that tunnel SPDY name the port of each stream in its headers, so the
// list may be empty; ports given must be in 1..65535.
type PodPortForwardOptions struct {
	meta.TypeMeta `json:",inline"`
	Ports         []int32 `json:"ports,omitempty"`
}

// ParsePodPortForwardOptions reads the repeated "ports" parameter (a
// port may also be a comma-separated list, as kube-apiserver accepts).
// A bad port is an ErrInvalidOptions error.
func ParsePodPortForwardOptions(q url.Values) (PodPortForwardOptions, error) {
	var o PodPortForwardOptions
	for _, v := range q["ports"] {
		for _, p := range splitComma(v) {
			n, err := strconv.ParseUint(p, 10, 16)
			if err != nil || n == 0 {
				return PodPortForwardOptions{}, optionsErrorf("invalid port %q: must be an integer in 1..65535", p)
			}
			o.Ports = append(o.Ports, int32(n))
		}
	}
	return o, nil
}

// Query encodes o as ParsePodPortForwardOptions reads it.
func (o PodPortForwardOptions) Query() url.Values {
	q := url.Values{}
	for _, p := range o.Ports {
		q.Add("ports", strconv.Itoa(int(p)))
	}
	return q
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
