package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// DefaultName is the account every namespace gets.
const DefaultName = "default"

// Config configures the controller. The zero value uses the defaults.
type Config struct {
	// Workers; default 1.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller ensures the default ServiceAccount of one namespace. It is a
// *controller.Controller (add it to the Manager it was made on, or Run it)
// reconciling with its own Reconcile. Make one with New; safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	client     *client.Client
	namespaces informer.Lister[*core.Namespace]
	accounts   informer.Lister[*core.ServiceAccount]
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the service account controller over m's shared informers of
// Namespaces and ServiceAccounts, writing through m's client; add it to m
// (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
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
	saInf, err := controller.InformerFor[core.ServiceAccount](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), namespaces: nsInf.Lister(), accounts: saInf.Lister()}
	c, err := controller.New("serviceaccount", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, nsInf)
	// A deleted default account is recreated: map it to its namespace.
	controller.Watch(c, saInf, func(sa *core.ServiceAccount) []controller.Request {
		if sa.Name != DefaultName {
			return nil
		}
		return []controller.Request{{Name: sa.Namespace}}
	})
	r.Controller = c
	return r, nil
}

// Reconcile creates the default ServiceAccount of namespace req.Name when
// the namespace is active and the account is missing.
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
	if _, err := r.accounts.Get(ns.Name, DefaultName); err == nil {
		return controller.Result{}, nil
	}
	sa := &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: DefaultName, Namespace: ns.Name}}
	_, err = client.For[core.ServiceAccount](r.client, ns.Name).Create(ctx, sa)
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		return controller.Result{}, nil
	case apierrors.IsForbidden(err) && isTerminating(err):
		return controller.Result{}, nil // the namespace began terminating meanwhile
	default:
		return controller.Result{}, fmt.Errorf("create ServiceAccount %s/%s: %w", ns.Name, DefaultName, err)
	}
}

// isTerminating reports whether err is NamespaceLifecycle's refusal of a
// create in a terminating namespace.
func isTerminating(err error) bool {
	var st *meta.Status
	if !errors.As(err, &st) || st.Details == nil {
		return false
	}
	for _, c := range st.Details.Causes {
		if c.Type == core.NamespaceTerminatingCause {
			return true
		}
	}
	return false
}
