package apiserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/protobuf"
)

// Responses in Kubernetes' protobuf encoding. A client that lists
// "application/vnd.kubernetes.protobuf" first in Accept (client-go's typed
// clients configured as kube's own components are) gets objects, lists,
// Status errors and watch streams of the built-in kinds in protobuf; every
// other response (custom resources, Tables, discovery) stays JSON, which
// such clients accept as well ("*/*" or "application/json" follows in
// their Accept). The JSON is the source: protobuf.FromJSON converts it
// exactly or refuses, and a refusal is answered in JSON, so no field is
// ever dropped.

// protobufStreamType is the media type of a protobuf watch stream.
const protobufStreamType = protobufType + ";stream=watch"

// prefersProtobuf reports whether the most preferred clause of r's Accept
// header (as negotiateResponse orders them) is Kubernetes protobuf without
// a transformation (as=Table, as=PartialObjectMetadata) asked for.
func prefersProtobuf(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, protobufType) {
		return false
	}
	clauses := parseAccept(accept)
	if len(clauses) == 0 {
		return false
	}
	c := clauses[0]
	_, as := c.params["as"]
	return c.typ+"/"+c.subtype == protobufType && !as
}

// protobufWriter is the response writer of a request whose client prefers
// protobuf: writeRaw, writeList and streamWatch encode for it.
type protobufWriter struct{ http.ResponseWriter }

func (w *protobufWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *protobufWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack passes a connection upgrade (exec, attach, port-forward) through.
func (w *protobufWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("apiserver: the response writer cannot hijack its connection")
}

// wantsProtobuf reports whether w is a protobuf client's writer.
func wantsProtobuf(w http.ResponseWriter) bool {
	_, ok := w.(*protobufWriter)
	return ok
}

// writeProtobuf writes the JSON document b as protobuf when w's client
// prefers it and b converts; it reports whether it wrote.
func writeProtobuf(w http.ResponseWriter, code int, b []byte) bool {
	if !wantsProtobuf(w) {
		return false
	}
	pb, err := protobuf.FromJSON(b)
	if err != nil {
		return false
	}
	w.Header().Set("Content-Type", protobufType)
	w.WriteHeader(code)
	_, _ = w.Write(pb)
	return true
}

// protobufEncoding is a cached object's protobuf form, or why it has none.
type protobufEncoding struct {
	b   []byte
	err error
}

// protobufOf returns o's protobuf encoding, converted from its wire JSON on
// first use and kept, so a watch event or a cached list item is converted
// once however many protobuf clients receive it. Two first uses at once
// may both convert; either result is kept.
func (o *cachedObject) protobufOf() ([]byte, error) {
	if p := o.pb.Load(); p != nil {
		return p.b, p.err
	}
	b, err := protobuf.FromJSON(o.raw)
	o.pb.Store(&protobufEncoding{b: b, err: err})
	return b, err
}

// protobufSlot is the field cachedObject keeps its protobuf form in.
type protobufSlot = atomic.Pointer[protobufEncoding]

// hasProtobuf reports whether res's kind has a protobuf encoding, which a
// watch stream needs to know before its first event.
func hasProtobuf(res *served) bool {
	gvk := res.Type.Kind
	_, err := protobuf.FromJSON([]byte(`{"apiVersion":"` + gvk.GroupVersion().String() + `","kind":"` + gvk.Kind + `","metadata":{}}`))
	return err == nil
}

// appendProtobuf appends ev as a protobuf watch frame; obj is its JSON
// (the cached wire JSON for object events, built for bookmarks).
func (e watchEncoder) appendProtobuf(dst []byte, ev WatchEvent, obj []byte) ([]byte, error) {
	var pb []byte
	var err error
	if ev.Type != meta.Bookmark && ev.Object != nil {
		pb, err = ev.Object.protobufOf()
	} else {
		pb, err = protobuf.FromJSON(obj)
	}
	if err != nil {
		return dst, err
	}
	return protobuf.AppendWatchEvent(dst, ev.Type, pb), nil
}

// listProtobuf returns the protobuf of a list response, or an error when
// an item (or the kind) has none; the caller answers in JSON then.
func listProtobuf(res *served, items []listItem, lm []byte) ([]byte, error) {
	objs := make([][]byte, len(items))
	for i, it := range items {
		var err error
		if it.cached != nil {
			objs[i], err = it.cached.protobufOf()
		} else {
			raw := it.raw
			if raw == nil {
				if raw, err = json.Marshal(it.object()); err != nil {
					return nil, err
				}
			}
			objs[i], err = protobuf.FromJSON(raw)
		}
		if err != nil {
			return nil, err
		}
	}
	return protobuf.ListFromObjects(res.Type.Kind.GroupVersion().String(), res.Type.ListKind(), lm, objs)
}
