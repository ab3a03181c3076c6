package rootcacert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// The published ConfigMap, as Kubernetes names and describes it.
const (
	// ConfigMapName is the name of the ConfigMap in every namespace.
	ConfigMapName = "kube-root-ca.crt"
	// Key is its key holding the PEM bundle.
	Key = "ca.crt"
	// DescriptionAnnotation and Description say what it is for.
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Config configures the publisher. RootCA is required; the rest has
// defaults.
type Config struct {
	// RootCA is the PEM bundle published as ca.crt (the cluster CA that
	// signed the API server's serving certificate).
	RootCA []byte
	// Workers; default 1.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller keeps kube-root-ca.crt in every active namespace. It is a
// *controller.Controller (add it to the Manager it was made on, or Run it)
// reconciling with its own Reconcile. Make one with New; safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	client     *client.Client
	rootCA     string
	namespaces informer.Lister[*core.Namespace]
	configMaps informer.Lister[*core.ConfigMap]
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the publisher over m's shared informers of Namespaces and
// ConfigMaps, writing through m's client. It fails with ErrInvalidConfig
// without a manager or a CA bundle, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if len(cfg.RootCA) == 0 {
		return nil, fmt.Errorf("%w: no root CA bundle", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	nsInf, err := controller.InformerFor[core.Namespace](m, "")
	if err != nil {
		return nil, err
	}
	cmInf, err := controller.InformerFor[core.ConfigMap](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), rootCA: string(cfg.RootCA), namespaces: nsInf.Lister(), configMaps: cmInf.Lister()}
	c, err := controller.New("root-ca-cert-publisher", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, nsInf)
	controller.Watch(c, cmInf, func(cm *core.ConfigMap) []controller.Request {
		if cm.Name != ConfigMapName {
			return nil
		}
		return []controller.Request{{Name: cm.Namespace}}
	})
	r.Controller = c
	return r, nil
}

// Reconcile creates or corrects kube-root-ca.crt in namespace req.Name
// when the namespace is active.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	ns, err := r.namespaces.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase == core.NamespaceTerminating {
		return controller.Result{}, nil
	}
	cms := client.For[core.ConfigMap](r.client, ns.Name)
	cm, err := r.configMaps.Get(ns.Name, ConfigMapName)
	if errors.Is(err, informer.ErrNotFound) {
		_, err = cms.Create(ctx, &core.ConfigMap{
			ObjectMeta: meta.ObjectMeta{Name: ConfigMapName, Namespace: ns.Name, Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data:       map[string]string{Key: r.rootCA},
		})
		if err == nil || apierrors.IsAlreadyExists(err) || apierrors.IsForbidden(err) && ns.DeletionTimestamp != nil {
			return controller.Result{}, nil
		}
		return controller.Result{}, fmt.Errorf("create ConfigMap %s/%s: %w", ns.Name, ConfigMapName, err)
	}
	if err != nil {
		return controller.Result{}, err
	}
	if r.current(cm) {
		return controller.Result{}, nil
	}
	upd := *cm
	upd.Data = map[string]string{Key: r.rootCA}
	upd.BinaryData = nil
	upd.Annotations = maps.Clone(cm.Annotations)
	if upd.Annotations == nil {
		upd.Annotations = map[string]string{}
	}
	upd.Annotations[DescriptionAnnotation] = Description
	if _, err := cms.Update(ctx, &upd); err != nil && !apierrors.IsNotFound(err) {
		return controller.Result{}, fmt.Errorf("update ConfigMap %s/%s: %w", ns.Name, ConfigMapName, err)
	}
	return controller.Result{}, nil
}

// current reports whether cm holds exactly the bundle and the
// description, as Kubernetes compares them.
func (r *Controller) current(cm *core.ConfigMap) bool {
	return len(cm.Data) == 1 && cm.Data[Key] == r.rootCA && len(cm.BinaryData) == 0 && cm.Annotations[DescriptionAnnotation] != ""
}
