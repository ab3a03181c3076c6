package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
)

// Version is what /version reports: kube's version fields, the commit, its
// time and the tree state from the Go build info (vcs.revision, vcs.time,
// vcs.modified) that go build stamps into binaries built in a checkout.
// kubectl prints it and checks the skew.
var Version = versionFrom(debug.ReadBuildInfo())

// VersionInfo is the body of /version.
type VersionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// versionFrom fills VersionInfo from the build info, when there is one.
// Without VCS information the commit and tree state stay empty and the
// build date is kube's unset one, 1970-01-01T00:00:00Z.
func versionFrom(bi *debug.BuildInfo, ok bool) VersionInfo {
	v := VersionInfo{
		Major: "1", Minor: "32", GitVersion: "v1.32.0-orkit", BuildDate: "1970-01-01T00:00:00Z",
		Platform: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version(), Compiler: runtime.Compiler,
	}
	if !ok || bi == nil {
		return v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.GitCommit = s.Value
		case "vcs.time":
			v.BuildDate = s.Value
		case "vcs.modified":
			v.GitTreeState = "clean"
			if s.Value == "true" {
				v.GitTreeState = "dirty"
			}
		}
	}
	return v
}

// healthCheck is one named check of /livez, /readyz or /healthz. check
// returns nil when healthy; its error is logged and answered only on the
// check's own path, so it must hold nothing internal.
type healthCheck struct {
	name  string
	check func(r *http.Request) error
}

// storeCheckTimeout bounds the store check.
const storeCheckTimeout = 2 * time.Second

// healthChecks returns the checks of endpoint ("livez", "readyz" or
// "healthz"), in kube-apiserver's order: ping, log, the store (kube's
// etcd check), and for readiness the watch caches' sync (informer-sync)
// and shutdown.
func (s *Server) healthChecks(endpoint string) []healthCheck {
	checks := []healthCheck{
		{"ping", func(*http.Request) error { return nil }},
		{"log", func(*http.Request) error { return nil }},
		{"store", s.checkStore},
	}
	if endpoint != "readyz" {
		return checks
	}
	return append(checks,
		healthCheck{"informer-sync", func(*http.Request) error {
			select {
			case <-s.ready:
				return nil
			default:
				return errors.New("the watch caches have not synced")
			}
		}},
		healthCheck{"shutdown", func(*http.Request) error {
			if ctx := s.runContext(); ctx != nil && ctx.Err() != nil {
				return errors.New("process is shutting down")
			}
			return nil
		}},
	)
}

// checkStore asks the store for its revision.
func (s *Server) checkStore(r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), storeCheckTimeout)
	defer cancel()
	if _, err := s.cfg.Store.Revision(ctx); err != nil {
		s.log.Warn("apiserver: store check failed", "err", err)
		return errors.New("the store does not answer")
	}
	return nil
}

// serveHealth serves /livez, /readyz and /healthz as kube-apiserver does:
// "ok" when every check passes, each check listed with ?verbose (and
// always on failure, a 500 with the reasons withheld), ?exclude=<name>
// skipping a check, and /<endpoint>/<name> running one check.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, p string) {
	endpoint, one, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	checks := s.healthChecks(endpoint)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if one != "" {
		i := slices.IndexFunc(checks, func(c healthCheck) bool { return c.name == one })
		if i < 0 {
			writeError(w, apierrors.NewPathNotFound())
			return
		}
		if err := checks[i].check(r); err != nil {
			http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("ok"))
		return
	}
	s.serveHealthList(w, r, endpoint, checks)
}

func (s *Server) serveHealthList(w http.ResponseWriter, r *http.Request, endpoint string, checks []healthCheck) {
	q := r.URL.Query()
	excluded := map[string]bool{}
	for _, v := range q["exclude"] {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				excluded[name] = true
			}
		}
	}
	var out strings.Builder
	var failed []string
	for _, c := range checks {
		if excluded[c.name] {
			delete(excluded, c.name)
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.name)
			continue
		}
		if err := c.check(r); err != nil {
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.name)
			failed = append(failed, c.name)
			s.log.Info("apiserver: health check failed", "endpoint", endpoint, "check", c.name, "err", err)
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.name)
	}
	if len(excluded) > 0 {
		names := make([]string, 0, len(excluded))
		for n := range excluded {
			names = append(names, fmt.Sprintf("%q", n))
		}
		slices.Sort(names)
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(names, ","))
	}
	if len(failed) > 0 {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(&out, "%s check failed\n", endpoint)
		_, _ = w.Write([]byte(out.String()))
		return
	}
	if _, verbose := q["verbose"]; !verbose {
		_, _ = w.Write([]byte("ok"))
		return
	}
	fmt.Fprintf(&out, "%s check passed\n", endpoint)
	_, _ = w.Write([]byte(out.String()))
}
