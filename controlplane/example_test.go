package controlplane_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
)

// ExampleStart starts a control plane with the defaults (bbolt and the CA
// in the data directory, Node and RBAC authorization, the default
// admission chain), on a free port, and lists its namespaces as an admin.
func ExampleStart() {
	dir, err := os.MkdirTemp("", "controlplane-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir, Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	defer func() {
		cancel()
		<-cp.Done() // the store is closed: the directory may go
	}()
	cfg, err := cp.ClientConfig("admin", "system:masters")
	if err != nil {
		panic(err)
	}
	c, err := client.New(cfg)
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()
	nss, err := client.For[core.Namespace](c, "").List(ctx, client.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, ns := range nss.Items {
		fmt.Println(ns.Name)
	}
	// Output:
	// default
	// kube-node-lease
	// kube-public
	// kube-system
}
