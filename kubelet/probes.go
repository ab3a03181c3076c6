package kubelet

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
)

// Prober runs the network actions of probes and hooks (httpGet and
// tcpSocket). Exec actions always go through the runtime's ExecSync.
type Prober interface {
	// HTTPGet performs a GET of url with headers within timeout; a status
	// in [200, 400) is success (nil).
	HTTPGet(ctx context.Context, url string, headers http.Header, timeout time.Duration) error
	// TCP opens and closes a connection to addr within timeout.
	TCP(ctx context.Context, addr string, timeout time.Duration) error
}

// netProber is the real Prober.
type netProber struct{}

var (
	_ Prober = netProber{}
	_ Prober = alwaysProber{}
)

// HTTPGet implements Prober over net/http, without verifying certificates.
func (netProber) HTTPGet(ctx context.Context, url string, headers http.Header, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for key, vs := range headers {
		for _, v := range vs {
			req.Header.Add(key, v)
		}
	}
	if h := headers.Get("Host"); h != "" {
		req.Host = h
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true} //nolint:gosec // probes do not verify, as the kubelet's
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 10<<10))
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("HTTP probe failed with statuscode: %d", resp.StatusCode)
	}
	return nil
}

// TCP implements Prober with a plain dial.
func (netProber) TCP(ctx context.Context, addr string, timeout time.Duration) error {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// alwaysProber succeeds at once: simulated nodes have no pod network.
type alwaysProber struct{}

// HTTPGet implements Prober: always healthy.
func (alwaysProber) HTTPGet(context.Context, string, http.Header, time.Duration) error { return nil }

// TCP implements Prober: always healthy.
func (alwaysProber) TCP(context.Context, string, time.Duration) error { return nil }

// probeKind names a container probe.
type probeKind int

const (
	probeStartup probeKind = iota
	probeLiveness
	probeReadiness
)

// String names the probe as Kubernetes' events do.
func (p probeKind) String() string {
	return [...]string{"Startup", "Liveness", "Readiness"}[p]
}

// probeState counts one probe's consecutive results.
type probeState struct {
	next      time.Time
	successes int32
	failures  int32
	result    bool // last decided result
	decided   bool
}

// runProbes runs the probes that are due for every running app container
// and returns when the next one is due.
func (k *Kubelet) runProbes(ctx context.Context, pod *core.Pod, ps *podState) time.Duration {
	next := k.cfg.ResyncInterval
	now := time.Now()
	for _, c := range probedContainers(pod) {
		cs := ps.containers[c.Name]
		wasStarted := cs != nil && cs.started
		if cs == nil || cs.id == "" {
			continue
		}
		st := k.containerStatus(ctx, cs)
		if cs.statusErr != nil {
			continue // unknown: readiness stays as it was
		}
		if st == nil || st.State != cri.ContainerRunning || cs.killReason != "" {
			cs.ready = false
			continue
		}
		if d := k.probeContainer(ctx, pod, ps, c, cs, st.StartedAt, now); d > 0 {
			next = min(next, d)
		}
		if cs.init && !wasStarted && cs.started {
			next = min(next, 10*time.Millisecond) // a sidecar started: go on with the next container
		}
	}
	return next
}

// probedContainers are the containers whose probes run: the sidecars and
// the app containers.
func probedContainers(pod *core.Pod) []*core.Container {
	var out []*core.Container
	for i := range pod.Spec.InitContainers {
		if core.IsRestartableInitContainer(&pod.Spec.InitContainers[i]) {
			out = append(out, &pod.Spec.InitContainers[i])
		}
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// probeContainer runs c's due probes in Kubernetes' order: startup until it
// succeeds, then liveness and readiness.
func (k *Kubelet) probeContainer(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, started, now time.Time) time.Duration {
	if cs.probes == nil {
		cs.probes = map[probeKind]*probeState{}
	}
	next := time.Duration(0)
	due := func(d time.Duration) {
		if next == 0 || d < next {
			next = d
		}
	}
	if !cs.started {
		if c.StartupProbe == nil {
			cs.started = true
		} else {
			ok, decided, d := k.probe(ctx, pod, ps, c, cs, probeStartup, c.StartupProbe, started, now)
			due(d)
			if decided && ok {
				cs.started = true
			} else if decided && !ok {
				cs.killReason = "StartupProbeFailed"
				return retryAfterError / 10
			}
			if !cs.started {
				cs.ready = false
				return next
			}
		}
	}
	if c.LivenessProbe != nil {
		ok, decided, d := k.probe(ctx, pod, ps, c, cs, probeLiveness, c.LivenessProbe, started, now)
		due(d)
		if decided && !ok {
			cs.killReason = "LivenessProbeFailed"
			k.cfg.Logger.Info("liveness probe failed, restarting container", "pod", podKey(pod), "container", c.Name)
			return retryAfterError / 10
		}
	}
	if c.ReadinessProbe == nil {
		cs.ready = true
		return next
	}
	ok, decided, d := k.probe(ctx, pod, ps, c, cs, probeReadiness, c.ReadinessProbe, started, now)
	due(d)
	if decided {
		cs.ready = ok
	}
	return next
}

// probe runs p if it is due and applies the thresholds. It returns the
// decided result (decided is false while thresholds are not reached for
// the first time) and when the probe is next due.
func (k *Kubelet) probe(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, kind probeKind, p *core.Probe, started, now time.Time) (bool, bool, time.Duration) {
	st := cs.probes[kind]
	if st == nil {
		st = &probeState{next: started.Add(time.Duration(p.InitialDelaySeconds) * time.Second)}
		cs.probes[kind] = st
	}
	period := time.Duration(orInt32(p.PeriodSeconds, 10)) * time.Second
	if now.Before(st.next) {
		return st.result, st.decided, st.next.Sub(now)
	}
	timeout := time.Duration(orInt32(p.TimeoutSeconds, 1)) * time.Second
	err := k.runAction(ctx, pod, ps, c, cs, p.ProbeHandler, timeout)
	if err == nil {
		st.successes, st.failures = st.successes+1, 0
		if st.successes >= orInt32(p.SuccessThreshold, 1) {
			st.result, st.decided = true, true
		}
	} else {
		k.containerEvent(pod, cs, core.EventTypeWarning, EventUnhealthy, "%s probe failed: %v", kind, err)
		st.failures, st.successes = st.failures+1, 0
		if st.failures >= orInt32(p.FailureThreshold, 3) {
			st.result, st.decided = false, true
			if kind != probeReadiness {
				st.failures = 0
			}
		}
	}
	st.next = time.Now().Add(period)
	return st.result, st.decided, period
}

func orInt32(v, def int32) int32 {
	if v <= 0 {
		return def
	}
	return v
}

// runAction runs an exec, httpGet or tcpSocket action against c.
func (k *Kubelet) runAction(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, h core.ProbeHandler, timeout time.Duration) error {
	if g := h.GRPC; g != nil {
		gp, ok := k.prober.(GRPCProber)
		if !ok {
			return fmt.Errorf("%w: the prober cannot run gRPC probes", ErrProbe)
		}
		service := ""
		if g.Service != nil {
			service = *g.Service
		}
		return gp.GRPC(ctx, net.JoinHostPort(k.podIP(pod, ps), strconv.Itoa(int(g.Port))), service, timeout)
	}
	return k.runHandler(ctx, pod, ps, c, cs, &core.LifecycleHandler{Exec: h.Exec, HTTPGet: h.HTTPGet, TCPSocket: h.TCPSocket}, timeout)
}

// runHandler runs a lifecycle handler (exec, httpGet, tcpSocket, sleep).
// ps may be nil (preStop during teardown); the pod IP then comes from the
// pod's status.
func (k *Kubelet) runHandler(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, h *core.LifecycleHandler, timeout time.Duration) error {
	switch {
	case h.Exec != nil:
		res, err := k.cfg.Runtime.ExecSync(ctx, cs.id, h.Exec.Command, timeout)
		if err != nil {
			return fmt.Errorf("%w: exec %v: %w", ErrHook, h.Exec.Command, err)
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("%w: exec %v exited %d: %s", ErrHook, h.Exec.Command, res.ExitCode, truncate(res.Stdout, res.Stderr))
		}
		return nil
	case h.HTTPGet != nil:
		g := h.HTTPGet
		host := g.Host
		if host == "" {
			host = k.podIP(pod, ps)
		}
		port, err := resolvePort(g.Port, c)
		if err != nil {
			return err
		}
		scheme := "http"
		if g.Scheme == core.URISchemeHTTPS {
			scheme = "https"
		}
		path := g.Path
		if path == "" || path[0] != '/' {
			path = "/" + path
		}
		hdr := http.Header{}
		for _, x := range g.HTTPHeaders {
			hdr.Add(x.Name, x.Value)
		}
		url := scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + path
		return k.prober.HTTPGet(ctx, url, hdr, timeout)
	case h.TCPSocket != nil:
		host := h.TCPSocket.Host
		if host == "" {
			host = k.podIP(pod, ps)
		}
		port, err := resolvePort(h.TCPSocket.Port, c)
		if err != nil {
			return err
		}
		return k.prober.TCP(ctx, net.JoinHostPort(host, strconv.Itoa(port)), timeout)
	case h.Sleep != nil:
		t := time.NewTimer(time.Duration(h.Sleep.Seconds) * time.Second)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		return nil
	}
	return fmt.Errorf("%w: handler has no action", ErrProbe)
}

func truncate(out, errOut []byte) string {
	s := string(out) + string(errOut)
	if len(s) > 256 {
		s = s[:256]
	}
	return s
}

func (k *Kubelet) podIP(pod *core.Pod, ps *podState) string {
	if ps != nil && len(ps.podIPs) > 0 {
		return ps.podIPs[0]
	}
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	return k.cfg.NodeIP.String()
}

// resolvePort resolves a numeric or named container port.
func resolvePort(p meta.IntOrString, c *core.Container) (int, error) {
	if !p.IsString {
		if p.IntVal <= 0 || p.IntVal > 65535 {
			return 0, fmt.Errorf("%w: port %d out of range", ErrProbe, p.IntVal)
		}
		return int(p.IntVal), nil
	}
	if n, err := strconv.Atoi(p.StrVal); err == nil {
		return n, nil
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return int(cp.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("%w: port %q not found in container %s", ErrProbe, p.StrVal, c.Name)
}
