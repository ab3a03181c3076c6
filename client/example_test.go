package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// fakeServer answers GET configmaps/settings, 404 for anything else, and
// serves a short watch.
func fakeServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Query().Get("watch") == "1":
			fmt.Fprintln(w, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","resourceVersion":"5"}}}`)
			fmt.Fprintln(w, `{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","resourceVersion":"6"}}}`)
		case r.URL.Path == "/api/v1/namespaces/default/configmaps/settings":
			fmt.Fprintln(w, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","namespace":"default"},"data":{"color":"blue"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintln(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"configmaps \"other\" not found"}`)
		}
	}))
}

func ExampleFor() {
	srv := fakeServer()
	defer srv.Close()
	c, err := client.New(&client.Config{Host: srv.URL})
	if err != nil {
		panic(err)
	}
	cms := client.For[core.ConfigMap](c, "default")
	cm, err := cms.Get(context.Background(), "settings")
	if err != nil {
		panic(err)
	}
	fmt.Println(cm.Name, cm.Data["color"])

	_, err = cms.Get(context.Background(), "other")
	fmt.Println(apierrors.IsNotFound(err))
	// Output:
	// settings blue
	// true
}

func ExampleResource_Watch() {
	srv := fakeServer()
	defer srv.Close()
	c, err := client.New(&client.Config{Host: srv.URL})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the watch and its goroutine
	events, err := client.For[core.ConfigMap](c, "default").Watch(ctx, client.ListOptions{ResourceVersion: "4"})
	if err != nil {
		panic(err)
	}
	for ev := range events {
		if ev.Err != nil {
			fmt.Println("watch ended:", ev.Err)
			break
		}
		fmt.Println(ev.Type, ev.Object.Name, ev.Object.ResourceVersion)
	}
	// Output:
	// ADDED settings 5
	// DELETED settings 6
}

func ExampleResource_Create_validation() {
	// Client-side validation refuses an invalid object before sending it;
	// the error is the Invalid Status the server would have answered with.
	c, err := client.New(&client.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		panic(err)
	}
	_, err = client.For[core.ConfigMap](c, "default").Create(context.Background(),
		&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "Not_Valid"}})
	var verr *client.ValidationError
	fmt.Println(errors.As(err, &verr), apierrors.IsInvalid(err))
	fmt.Println(verr.Status.Details.Causes[0].Field)
	// Output:
	// true true
	// metadata.name
}

func ExampleConfigFromKubeconfig() {
	dir, err := os.MkdirTemp("", "kubeconfig")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config")
	kc := client.NewKubeconfig("https://127.0.0.1:6443", nil, "dev", client.AuthInfo{TokenFile: "dev.token"})
	kc.Contexts[0].Context.Namespace = "team"
	if err := kc.Write(path); err != nil {
		panic(err)
	}
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Host, cfg.Namespace, filepath.Base(cfg.BearerTokenFile), filepath.Dir(cfg.BearerTokenFile) == dir)
	// Output: https://127.0.0.1:6443 team dev.token true
}

func ExampleNewWatchDecoder() {
	stream := `{"type":"ADDED","object":{"metadata":{"name":"a"}}}
{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version"}}
`
	d := client.NewWatchDecoder(strings.NewReader(stream), 0)
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			panic(err)
		}
		fmt.Println(ev.Type, len(ev.Object) > 0)
	}
	// Output:
	// ADDED true
	// ERROR true
}

func ExampleUnstructured() {
	var u client.Unstructured
	if err := json.Unmarshal([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2}}`), &u); err != nil {
		panic(err)
	}
	replicas, _ := u.Field("spec", "replicas")
	fmt.Println(u.Kind, u.Name, replicas)
	_ = u.SetField(float64(3), "spec", "replicas")
	b, _ := json.Marshal(u)
	fmt.Println(string(b))
	// Output:
	// Deployment web 2
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}
}

func ExampleTokenBucket() {
	b := client.NewTokenBucket(1, 2) // 1 request a second, 2 at once
	fmt.Println(b.TryAccept(), b.TryAccept(), b.TryAccept())
	// Output: true true false
}
