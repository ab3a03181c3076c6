package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
)

// handleList serves a list. resourceVersion "0" (what informers send) is
// served from the watch cache; an empty resourceVersion, a limit with a
// continue token or resourceVersionMatch=Exact read the store, so the
// answer is consistent, as kube-apiserver does.
func (s *Server) handleList(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	f, err := parseFilter(req)
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
	if rv == "0" && q.Get("continue") == "" && q.Get("resourceVersionMatch") != "Exact" {
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
	if wantsTable(r) {
		objs := make([]meta.Object, len(items))
		for i, it := range items {
			objs[i] = it.object()
		}
		tbl := req.resource.table().Convert(objs, strconv.FormatInt(listRV, 10), continue_, includeObject(r))
		writeJSON(w, http.StatusOK, tbl)
		return
	}
	writeRaw(w, http.StatusOK, encodeList(req.resource, items, listRV, continue_, remaining))
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
	if rv != "" && rv != "0" && opts.Continue == "" && q.Get("resourceVersionMatch") == "Exact" {
		n, err := strconv.ParseInt(rv, 10, 64)
		if err != nil {
			return nil, 0, "", nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
		}
		opts.Revision = n
	}
	var items []listItem
	var listRV int64
	for {
		opts.Limit = 0
		if limit > 0 {
			opts.Limit = limit - len(items)
		}
		res, err := req.resource.storage.ListRaw(ctx, req.Info.Namespace, opts)
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

// encodeList writes the list document by splicing already-encoded items.
func encodeList(res *served, items []listItem, rv int64, cont string, remaining *int64) []byte {
	var buf bytes.Buffer
	lm := meta.ListMeta{ResourceVersion: strconv.FormatInt(rv, 10), Continue: cont, RemainingItemCount: remaining}
	lmb, _ := json.Marshal(lm)
	fmt.Fprintf(&buf, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, res.Type.ListKind(), res.Type.Kind.GroupVersion().String(), lmb)
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		raw := it.raw
		if raw == nil {
			raw, _ = json.Marshal(it.object())
		}
		buf.Write(raw)
	}
	buf.WriteString("]}")
	return buf.Bytes()
}
