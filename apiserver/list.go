package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
)

// handleList serves a list. Whole lists come from the watch cache:
// resourceVersion "0" (what informers send) as the cache is, "" after the
// cache has caught up with the store (a consistent read), N once the
// cache has reached N; pages (a limit or a continue token) and
// resourceVersionMatch=Exact read the store, as kube-apiserver does. A resourceVersion the
// server has not reached yet is waited for (briefly, then 504).
func (s *Server) handleList(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	f, err := parseFilter(req)
	if err == nil {
		err = validateListOptions(req.Query)
	}
	if err == nil {
		err = s.waitForResourceVersion(ctx, req)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	q := req.Query
	rv := q.Get("resourceVersion")
	var (
		items     []listItem
		listRV    int64
		continue_ string
		remaining *int64
	)
	if listFromCache(q) {
		if rv == "" {
			// A consistent read: the cache is first brought up to the
			// store's current revision (as kube-apiserver serves
			// consistent lists from its watch cache).
			if err := s.waitConsistent(ctx, req); err != nil {
				writeError(w, err)
				return
			}
		}
		objs, crv := req.resource.cache.List(req.Info.Namespace, f)
		for _, o := range objs {
			items = append(items, listItem{cached: o, raw: o.raw})
		}
		listRV = crv
	} else {
		items, listRV, continue_, remaining, err = s.listFromStore(ctx, req, f, rv)
		if err != nil {
			writeError(w, err)
			return
		}
	}
	writeItems(w, r, req, items, listRV, continue_, remaining)
}

// writeItems writes a list of items, as a Table or a
// PartialObjectMetadataList when the client asked for one (req.as).
func writeItems(w http.ResponseWriter, r *http.Request, req *Request, items []listItem, rv int64, cont string, remaining *int64) {
	if req.as.Kind == "" {
		writeList(w, req.resource, items, rv, cont, remaining)
		return
	}
	objs := make([]meta.Object, len(items))
	for i, it := range items {
		objs[i] = it.object()
	}
	srv := strconv.FormatInt(rv, 10)
	if req.as.Kind == asTable {
		writeJSON(w, http.StatusOK, req.resource.asTable(req.as, objs, srv, cont, includeObject(r)))
		return
	}
	writeJSON(w, http.StatusOK, partialList(req.as, objs, meta.ListMeta{ResourceVersion: srv, Continue: cont, RemainingItemCount: remaining}))
}

// listBuffer is the size of the buffer a list is streamed through.
const listBuffer = 64 << 10

// writeList streams a list response: the items are written one by one
// through a small buffer, never built into one document, so a list of
// 100,000 cached objects costs the server its item references, not a
// copy of them all.
func writeList(w http.ResponseWriter, res *served, items []listItem, rv int64, cont string, remaining *int64) {
	if wantsProtobuf(w) {
		lm, _ := json.Marshal(meta.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10), Continue: cont, RemainingItemCount: remaining})
		if pb, err := listProtobuf(res, items, lm); err == nil {
			w.Header().Set("Content-Type", protobufType)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(pb)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, listBuffer)
	encodeList(bw, res, items, rv, cont, remaining)
	_ = bw.WriteByte('\n')
	_ = bw.Flush() // a client gone away is not an error to report
}

// listFromCache says whether a list is served from the watch cache: every
// list but a page (a limit or continue token, except with
// resourceVersion "0", where kube ignores the limit) and an exact
// resourceVersion, which the store answers.
func listFromCache(q url.Values) bool {
	if q.Get("continue") != "" {
		return false
	}
	if q.Get("resourceVersion") == "0" {
		return true
	}
	limit := q.Get("limit")
	return (limit == "" || limit == "0") && q.Get("resourceVersionMatch") != rvMatchExact
}

// validateListOptions checks resourceVersion, resourceVersionMatch and
// continue together, as kube-apiserver's ListOptions validation does (a
// 422 naming each problem), and that resourceVersion is a revision (400).
func validateListOptions(q url.Values) error {
	rv, match, cont := q.Get("resourceVersion"), q.Get("resourceVersionMatch"), q.Get("continue")
	p := field.NewPath("resourceVersionMatch")
	var errs field.ErrorList
	if _, ok := q["sendInitialEvents"]; ok {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	if match != "" {
		if rv == "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if cont != "" {
			errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if match != rvMatchExact && match != rvMatchNotOlderThan {
			errs = append(errs, field.NotSupported(p, match, []string{rvMatchExact, rvMatchNotOlderThan, ""}))
		}
		if match == rvMatchExact && rv == "0" {
			errs = append(errs, field.Forbidden(p, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(listOptionsKind, "", errs)
	}
	if rv != "" {
		if n, err := strconv.ParseInt(rv, 10, 64); err != nil || n < 0 {
			return apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
		}
		if cont != "" && rv != "0" {
			return apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
	}
	return nil
}

// waitForResourceVersion waits until the resource's watch cache has
// reached the list's resourceVersion (validated), so the answer is not
// older than what the client has seen; after freshnessWait it is a 504
// "Too large resource version", which clients retry.
func (s *Server) waitForResourceVersion(ctx context.Context, req *Request) error {
	want, _ := strconv.ParseInt(req.Query.Get("resourceVersion"), 10, 64)
	if want <= 0 || req.Query.Get("continue") != "" {
		return nil
	}
	return waitRevision(ctx, req.resource.cache, want)
}

type listItem struct {
	obj    meta.Object
	cached *cachedObject // instead of obj, for items from the watch cache
	raw    []byte        // encoded obj, when already at hand
}

// object returns the item's object.
func (it listItem) object() meta.Object {
	if it.cached != nil {
		return it.cached.object()
	}
	return it.obj
}

// maxListRestarts bounds how often listFromStore starts a fresh list
// again after a compaction overtook it.
const maxListRestarts = 3

func (s *Server) listFromStore(ctx context.Context, req *Request, f Filter, rv string) ([]listItem, int64, string, *int64, error) {
	q := req.Query
	opts := store.ListOptions{Continue: q.Get("continue")}
	limit := 0
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return nil, 0, "", nil, apierrors.NewBadRequest(fmt.Sprintf("invalid limit %q", l))
		}
		limit = n
	}
	if rv != "" && rv != "0" && opts.Continue == "" && q.Get("resourceVersionMatch") == rvMatchExact {
		n, err := strconv.ParseInt(rv, 10, 64)
		if err != nil {
			return nil, 0, "", nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
		}
		opts.Revision = n
	}
	// A list the client started at the latest revision may read several
	// store pages (a selector skips items) at the first page's revision;
	// when a compaction removes that revision meanwhile, the list starts
	// again at the new latest one, as many as maxListRestarts times: the
	// client asked for no revision, so a 410 would be ours, not its.
	fresh := opts.Continue == "" && opts.Revision == 0
	restarts := 0
	var items []listItem
	var listRV int64
	for {
		opts.Limit = 0
		if limit > 0 {
			opts.Limit = limit - len(items)
		}
		res, err := req.resource.storage.ListRaw(ctx, req.Info.Namespace, opts)
		if err != nil && fresh && opts.Continue != "" && apierrors.IsResourceExpired(err) && restarts < maxListRestarts {
			restarts++
			items, opts.Continue, opts.Revision = items[:0], "", 0
			continue
		}
		if err != nil {
			return nil, 0, "", nil, err
		}
		listRV = res.Revision
		for _, kv := range res.KVs {
			obj, err := req.resource.storage.Decode(kv)
			if err != nil {
				return nil, 0, "", nil, req.resource.storage.apiError(err, nameFromKey(kv.Key))
			}
			if f.matchesObject(obj, req.resource) {
				items = append(items, listItem{obj: obj})
			}
		}
		if res.Continue == "" {
			return items, listRV, "", nil, nil
		}
		if limit > 0 && len(items) >= limit {
			if f.selects() {
				// How many of the rest match is unknown: kube-apiserver
				// leaves remainingItemCount unset under a selector.
				return items, listRV, res.Continue, nil, nil
			}
			rem := res.Remaining
			return items, listRV, res.Continue, &rem, nil
		}
		opts.Continue, opts.Revision = res.Continue, 0
	}
}

// matchesObject applies the filter to a decoded object.
func (f Filter) matchesObject(obj meta.Object, res *served) bool {
	fs := selectableFields(obj, res.Type.Namespaced, res.Fields)
	return f.matches(newDecodedObject("", obj, nil, fs, 0))
}

// encodeList writes the list document to buf by splicing already-encoded
// items.
func encodeList(buf listWriter, res *served, items []listItem, rv int64, cont string, remaining *int64) {
	lm := meta.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10), Continue: cont, RemainingItemCount: remaining}
	lmb, _ := json.Marshal(lm)
	fmt.Fprintf(buf, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, res.Type.ListKind(), res.Type.Kind.GroupVersion().String(), lmb)
	_, custom := res.Strategy.(customStrategy)
	for i, it := range items {
		if i > 0 {
			_ = buf.WriteByte(',')
		}
		raw := it.raw
		if raw == nil {
			raw, _ = json.Marshal(it.object())
		}
		if custom {
			_, _ = buf.Write(raw) // custom resources' items keep kind and apiVersion, as in Kubernetes
		} else {
			writeListItem(buf, raw)
		}
	}
	_, _ = io.WriteString(buf, "]}")
}
