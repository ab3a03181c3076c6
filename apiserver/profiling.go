package apiserver

import (
	"net/http"
	"net/http/pprof"
	"strings"
)

// serveProfiling serves Go's runtime profiles under /debug/pprof/, as
// kube-apiserver does with its default --profiling=true: heap, goroutine,
// allocs, CPU (?seconds=N) and trace, for whoever the authorizer allows
// "get" on those non-resource URLs (system:masters, cluster-admin). It is
// how a scale run looks inside a process that embeds the API server.
func serveProfiling(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, "/debug/pprof/") {
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Index(w, r) // the index, and every named profile (heap, goroutine, ...)
	}
}
