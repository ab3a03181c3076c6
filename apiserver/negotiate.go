package apiserver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
)

// responseAs is the form a resource response takes, negotiated from the
// request's Accept header as kube-apiserver does: the object itself (or
// its list), a meta.k8s.io Table, or PartialObjectMetadata(List).
type responseAs struct {
	// Kind is "" (the object), asTable, asPartial or asPartialList.
	Kind string
	// Version is the meta.k8s.io version asked for with Kind: "v1" or
	// "v1beta1"; the response's apiVersion names it.
	Version string
}

// The transformations a client may ask for with `as=` (and
// `g=meta.k8s.io;v=v1`) in its Accept header.
const (
	asTable       = "Table"
	asPartial     = "PartialObjectMetadata"
	asPartialList = "PartialObjectMetadataList"
)

// apiVersion is the apiVersion of the transformed response.
func (a responseAs) apiVersion() string { return "meta.k8s.io/" + a.Version }

// resourceMediaTypes are the media types resources are served in, as
// kube-apiserver lists them in a 406. orkit answers in JSON, or in protobuf
// when that is the client's first choice and the kind has a protobuf form
// (encoding_protobuf.go); a client that also accepts YAML reads JSON by
// the response's Content-Type.
var resourceMediaTypes = []string{"application/json", "application/yaml", protobufType}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, subtype string
	params       map[string]string
	q            float64
}

// parseAccept splits an Accept header into its clauses, most preferred
// first: by q (clauses with q=0 dropped), then the more specific before
// wildcards, then in header order. Malformed clauses are skipped.
func parseAccept(header string) []acceptClause {
	var out []acceptClause
	for _, part := range strings.Split(header, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		// Split leniently, as kube-apiserver's goautoneg does (no
		// mime.ParseMediaType: it refuses what clients send, such as
		// repeated or empty parameters).
		fields := strings.Split(part, ";")
		typ, sub, ok := strings.Cut(strings.ToLower(strings.TrimSpace(fields[0])), "/")
		if !ok || typ == "" || sub == "" {
			continue
		}
		c := acceptClause{typ: typ, subtype: sub, params: map[string]string{}, q: 1}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			c.params[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
		if q, ok := c.params["q"]; ok {
			var err error
			if c.q, err = strconv.ParseFloat(q, 64); err != nil {
				continue
			}
		}
		if !(c.q > 0) { // q=0 means "not acceptable"; NaN is no weight
			continue
		}
		out = append(out, c)
	}
	specificity := func(c acceptClause) int {
		switch {
		case c.typ == "*":
			return 0
		case c.subtype == "*":
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].q != out[j].q {
			return out[i].q > out[j].q
		}
		return specificity(out[i]) > specificity(out[j])
	})
	return out
}

// matches reports whether the clause admits the media type mt
// ("application/json").
func (c acceptClause) matches(mt string) bool {
	typ, sub, _ := strings.Cut(mt, "/")
	return c.typ == "*" || (c.typ == typ && (c.subtype == "*" || c.subtype == sub))
}

// negotiateResponse picks the form of the response to a request for verb
// on res from the Accept header, as kube-apiserver's content negotiation:
// the first clause (by preference) the resource can serve wins. A clause
// with as/g/v asks for a transformation: a Table (as JSON or YAML; not of
// a resource without a table, see Resource.Table) or
// PartialObjectMetadata(List), each in meta.k8s.io v1 or v1beta1; any
// other transformation, or a media type the server does not speak, makes
// the clause unacceptable. So kubectl's "Table, or else JSON" gets JSON
// where there is no table, and a request no clause of which is acceptable
// gets 406 Not Acceptable. An empty header means JSON.
//
// kube-apiserver refuses PartialObjectMetadata for a list, and
// PartialObjectMetadataList for a single object, with 406 when it encodes
// the response; orkit does before it acts, so a write is not done.
func negotiateResponse(header string, res *served, verb string) (responseAs, error) {
	if strings.TrimSpace(header) == "" {
		return responseAs{}, nil
	}
	for _, c := range parseAccept(header) {
		as, ok := c.acceptable(res)
		if !ok {
			continue
		}
		list := verb == "list" || verb == "deletecollection"
		switch {
		case as.Kind == asPartial && list:
			return as, apierrors.NewNotAcceptable(fmt.Sprintf("you requested %s, but the requested object is a list", asPartial))
		case as.Kind == asPartialList && !list:
			// Watch events carry single objects too.
			return as, apierrors.NewNotAcceptable(fmt.Sprintf("you requested %s, but the requested object is not a list", asPartialList))
		}
		return as, nil
	}
	return responseAs{}, apierrors.NewNotAcceptable("only the following media types are accepted: " + strings.Join(resourceMediaTypes, ", "))
}

// acceptable returns the form clause c asks of res, and whether res can
// serve it (kube-apiserver's RequestScope.AllowsMediaTypeTransform).
func (c acceptClause) acceptable(res *served) (responseAs, bool) {
	mt := ""
	for _, m := range resourceMediaTypes {
		if c.matches(m) {
			mt = m
			break
		}
	}
	if mt == "" {
		return responseAs{}, false
	}
	as, g, v := c.params["as"], c.params["g"], c.params["v"]
	if as == "" && g == "" && v == "" {
		return responseAs{}, true
	}
	if g != "meta.k8s.io" || (v != "v1" && v != "v1beta1") {
		return responseAs{}, false
	}
	switch as {
	case asTable:
		// A Table is JSON or YAML; a wildcard clause gets JSON.
		return responseAs{Kind: as, Version: v}, res.hasTable() && (mt == "application/json" || mt == "application/yaml")
	case asPartial, asPartialList:
		return responseAs{Kind: as, Version: v}, true
	}
	return responseAs{}, false
}
