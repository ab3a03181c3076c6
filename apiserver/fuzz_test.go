package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/store/bbolt"
)

// inProcess returns a server handler with every request authenticated as
// an admin, for fuzzing the request decoding without TLS.
func inProcess(f *testing.F) *Server {
	st, err := bbolt.Open(f.TempDir()+"/store.db", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	admin := authn.AuthenticatorFunc(func(*http.Request) (*authn.User, bool, error) {
		return &authn.User{Name: "admin", Groups: []string{"system:masters"}}, true, nil
	})
	srv, err := New(Config{Store: st, Scheme: api.NewScheme(), Authenticator: admin})
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	srv.startCaches(ctx)
	select {
	case <-srv.Ready():
	case <-time.After(10 * time.Second):
		f.Fatal("caches did not sync")
	}
	return srv
}

// FuzzRequestBody sends arbitrary bodies to create, update and patch: the
// server must answer with a Status (never panic) and stay consistent.
func FuzzRequestBody(f *testing.F) {
	srv := inProcess(f)
	f.Add(uint8(0), "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`))
	f.Add(uint8(0), "application/yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}"))
	f.Add(uint8(1), "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}`))
	f.Add(uint8(2), "application/merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	f.Add(uint8(2), "application/json-patch+json", []byte(`[{"op":"add","path":"/data/x","value":"y"}]`))
	f.Add(uint8(2), "application/strategic-merge-patch+json", []byte(`{"data":{"$patch":"replace"}}`))
	f.Add(uint8(0), "application/json", []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"x-"},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1e9999"}}}]}}`))
	methods := []string{"POST", "PUT", "PATCH"}
	f.Fuzz(func(t *testing.T, m uint8, ctype string, body []byte) {
		method := methods[int(m)%len(methods)]
		path := "/api/v1/namespaces/default/configmaps"
		if method != "POST" {
			path += "/a"
		}
		if bytes.Contains(body, []byte(`"Pod"`)) {
			path = "/api/v1/namespaces/default/pods"
		}
		req := httptest.NewRequest(method, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, ctype, body, rec.Code, rec.Body.String())
		}
	})
}

// FuzzWireJSON checks the resourceVersion splice: for any valid JSON text
// the result is nil or valid JSON whose top-level metadata gained
// resourceVersion and lost nothing.
func FuzzWireJSON(f *testing.F) {
	for _, s := range []string{`{"kind":"K","metadata":{"name":"a"}}`, `{"metadata":{}}`, `{"a":"\"metadata\":{","metadata":{"x":1}}`,
		`{"spec":{"metadata":{}},"metadata":{}}`, `["metadata":{]`, `{"a":"\\","metadata":{"b":[1]}}`, ` {"metadata":{"c":{}}} `, `{"\"metadata":{"x":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var before map[string]any
		if json.Unmarshal(b, &before) != nil {
			return
		}
		wire := WireJSON(b, 7)
		if wire == nil {
			return
		}
		var after map[string]any
		if err := json.Unmarshal(wire, &after); err != nil {
			t.Fatalf("splice of %q gave invalid JSON %q: %v", b, wire, err)
		}
		m, ok := after["metadata"].(map[string]any)
		if !ok || m["resourceVersion"] != "7" {
			t.Fatalf("splice of %q: metadata %v lacks resourceVersion 7", b, after["metadata"])
		}
		if bm, ok := before["metadata"].(map[string]any); ok {
			if _, had := bm["resourceVersion"]; !had {
				delete(m, "resourceVersion")
			}
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("splice of %q changed more than resourceVersion: %q", b, wire)
		}
	})
}

// FuzzPodFieldsJSON checks that reading a pod's selectable fields from its
// JSON agrees with decoding the pod: whatever decodes as a pod gives the
// same fields and metadata both ways.
func FuzzPodFieldsJSON(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{"nodeName":"n"},"status":{"phase":"Running"}}`))
	f.Add([]byte(`{"spec":{"nodeName":null,"restartPolicy":"Never"},"status":{}}`))
	f.Add([]byte(`{"spec":{"nodeName":"a","nodeName":"b"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var pod core.Pod
		if json.Unmarshal(b, &pod) != nil {
			return
		}
		m, fs, err := podFieldsJSON(b)
		if err != nil {
			t.Fatalf("%q decodes as a pod but not its fields: %v", b, err)
		}
		if want := podFields(&pod); !reflect.DeepEqual(want, fs) {
			t.Fatalf("%q: fields %v, decoding the pod gives %v", b, fs, want)
		}
		if !reflect.DeepEqual(pod.ObjectMeta, *m) {
			t.Fatalf("%q: metadata %+v, decoding the pod gives %+v", b, *m, pod.ObjectMeta)
		}
	})
}
