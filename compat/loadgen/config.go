package loadgen

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Config is what every mode needs; each mode documents the fields it
// reads and their defaults.
type Config struct {
	// REST reaches the API server (credentials allowed to do everything
	// the mode does). The modes copy it: JSON (or protobuf) bodies, rate
	// limits lifted.
	REST *rest.Config
	// Protobuf makes every client of the mode send and accept Kubernetes
	// protobuf ("application/vnd.kubernetes.protobuf", then JSON), as
	// kube's own components do; false means JSON, as client-go's default.
	Protobuf bool
	// Namespace the mode's objects go in; "" means "loadgen". It is
	// created when missing.
	Namespace string
	// N is the mode's object count (ConfigMaps, objects to sync, pods).
	N int
	// Workers is how many goroutines write at once; 0 means 32.
	Workers int
	// OwnConnections gives each writer of Creates a client (and TLS
	// connection) of its own, as orkit's apiload does; false means one
	// clientset shared by all writers, as an operator's client is (client-go
	// multiplexes them on one HTTP/2 connection).
	OwnConnections bool
}

func (c Config) namespace() string {
	if c.Namespace == "" {
		return "loadgen"
	}
	return c.Namespace
}

func (c Config) workers() int {
	if c.Workers <= 0 {
		return 32
	}
	return c.Workers
}

// restConfig returns a copy of c.REST for JSON (or, with c.Protobuf,
// protobuf) bodies without client-side rate limiting.
func (cfg Config) restConfig() *rest.Config {
	c := rest.CopyConfig(cfg.REST)
	c.ContentType = "application/json"
	c.AcceptContentTypes = "application/json"
	if cfg.Protobuf {
		c.ContentType = "application/vnd.kubernetes.protobuf"
		c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	c.QPS, c.Burst = -1, 0
	c.RateLimiter = nil
	return c
}

// ownConnection returns a copy of cfg whose client opens its own TLS
// connection (client-go shares transports between equal configs; a Dial
// function of its own makes the config unequal to every other). dials
// counts the connections it opened.
func ownConnection(cfg *rest.Config, dials *atomic.Int64) *rest.Config {
	c := rest.CopyConfig(cfg)
	d := &net.Dialer{}
	c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	return c
}

// ensureNamespace creates ns unless it exists (a user who may read but
// not create namespaces, as one bound to ClusterRole edit, can use an
// existing one).
func ensureNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
		return nil
	}
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	return nil
}
