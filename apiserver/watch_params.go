package apiserver

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// InitialEventsAnnotation marks the BOOKMARK that ends a watch-list's
// initial events (metav1.InitialEventsAnnotationKey in Kubernetes).
const InitialEventsAnnotation = "k8s.io/initial-events-end"

// The values of resourceVersionMatch.
const (
	rvMatchNotOlderThan = "NotOlderThan"
	rvMatchExact        = "Exact"
)

// listOptionsKind is the kind kube-apiserver names in its 422 answer to
// list and watch parameters that do not go together.
var listOptionsKind = meta.GroupVersionKind{Group: "meta.k8s.io", Version: "v1", Kind: "ListOptions"}

// watchParams are the query parameters of a watch request.
type watchParams struct {
	// rv is resourceVersion as sent ("" and "0" have meanings of their
	// own); rvNum is its value.
	rv    string
	rvNum int64
	// sendInitialEvents is nil when the parameter is absent.
	sendInitialEvents *bool
	bookmarks         bool
	timeout           time.Duration
}

// initialEvents says the watch starts with the current state: asked with
// sendInitialEvents=true, or, without the parameter, for
// resourceVersion "" or "0" (the legacy watch).
func (p watchParams) initialEvents() bool {
	if p.sendInitialEvents != nil {
		return *p.sendInitialEvents
	}
	return p.rvNum == 0
}

// parseWatchParams reads and checks a watch's query parameters as
// kube-apiserver does: combinations of sendInitialEvents and
// resourceVersionMatch it refuses are a 422 Invalid ListOptions, an
// unparsable resourceVersion or timeoutSeconds a 400. timeoutSeconds is
// capped at maxTimeout.
func parseWatchParams(q url.Values, maxTimeout time.Duration) (watchParams, error) {
	p := watchParams{rv: q.Get("resourceVersion"), sendInitialEvents: queryBool(q, "sendInitialEvents"), timeout: maxTimeout}
	if b := queryBool(q, "allowWatchBookmarks"); b != nil {
		p.bookmarks = *b
	}
	if errs := validateWatchOptions(q, p.sendInitialEvents); len(errs) > 0 {
		return p, apierrors.NewInvalid(listOptionsKind, "", errs)
	}
	if p.rv != "" {
		n, err := strconv.ParseInt(p.rv, 10, 64)
		if err != nil || n < 0 {
			return p, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", p.rv))
		}
		p.rvNum = n
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, apierrors.NewBadRequest(fmt.Sprintf("invalid timeoutSeconds %q", v))
		}
		if d := time.Duration(n) * time.Second; d > 0 && d < p.timeout {
			p.timeout = d
		}
	}
	return p, nil
}

// validateWatchOptions is kube-apiserver's check of a watch's
// sendInitialEvents and resourceVersionMatch: sendInitialEvents (true or
// false) needs resourceVersionMatch=NotOlderThan, and
// resourceVersionMatch needs sendInitialEvents, takes only NotOlderThan
// and no continue token.
func validateWatchOptions(q url.Values, sendInitialEvents *bool) field.ErrorList {
	var errs field.ErrorList
	match := q.Get("resourceVersionMatch")
	path := field.NewPath("resourceVersionMatch")
	if sendInitialEvents != nil && match != rvMatchNotOlderThan {
		errs = append(errs, field.Forbidden(path, "sendInitialEvents requires setting resourceVersionMatch to "+rvMatchNotOlderThan))
	}
	if match == "" {
		return errs
	}
	if sendInitialEvents == nil {
		errs = append(errs, field.Forbidden(path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
	}
	if match != rvMatchNotOlderThan {
		errs = append(errs, field.NotSupported(path, match, []string{rvMatchNotOlderThan}))
	}
	if q.Get("continue") != "" {
		errs = append(errs, field.Forbidden(path, "resourceVersionMatch is forbidden when continue is provided"))
	}
	return errs
}

// queryBool reads a boolean query parameter as Kubernetes' parameter
// codec does: absent is nil, "0" and "false" (any case) are false, any
// other value (even empty) is true.
func queryBool(q url.Values, name string) *bool {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return nil
	}
	v := !(vs[0] == "0" || strings.EqualFold(vs[0], "false"))
	return &v
}
