package clusterroleaggregation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers; 0 means 1.
	Workers int
	// Logger; nil means the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller keeps the rules of aggregated ClusterRoles. It is a
// *controller.Controller (add it to the Manager it was made on, or Run
// it) reconciling with its own Reconcile. Make one with New; safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	client *client.Client
	roles  informer.Lister[*rbac.ClusterRole]
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the controller over m's shared ClusterRole informer, writing
// through m's client. It fails with ErrInvalidConfig without a manager,
// and when the informer cannot be made.
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
	inf, err := controller.InformerFor[rbac.ClusterRole](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), roles: inf.Lister()}
	c, err := controller.New("clusterrole-aggregation", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	// Any change may change what an aggregated role selects: requeue
	// every aggregated role (they are few).
	controller.Watch(c, inf, func(*rbac.ClusterRole) []controller.Request {
		all := r.roles.List(labels.Everything())
		var out []controller.Request
		for _, cr := range all {
			if cr.AggregationRule != nil {
				out = append(out, controller.Request{Name: cr.Name})
			}
		}
		return out
	})
	r.Controller = c
	return r, nil
}

// Reconcile sets the rules of the aggregated ClusterRole req.Name to the
// union of the rules its selectors match.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	cr, err := r.roles.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if cr.AggregationRule == nil {
		return controller.Result{}, nil
	}
	want, err := r.aggregate(cr)
	if err != nil {
		return controller.Result{}, err
	}
	if reflect.DeepEqual(cr.Rules, want) || len(cr.Rules) == 0 && len(want) == 0 {
		return controller.Result{}, nil
	}
	upd := meta.DeepCopy(cr)
	upd.Rules = want
	if _, err := client.For[rbac.ClusterRole](r.client, "").Update(ctx, upd); err != nil && !apierrors.IsNotFound(err) {
		return controller.Result{}, fmt.Errorf("update ClusterRole %s: %w", cr.Name, err)
	}
	return controller.Result{}, nil
}

// aggregate returns the union of the rules of the ClusterRoles cr's
// selectors match: selector by selector, roles in name order, each rule
// once, cr's own rules never.
func (r *Controller) aggregate(cr *rbac.ClusterRole) ([]rbac.PolicyRule, error) {
	var out []rbac.PolicyRule
	for i := range cr.AggregationRule.ClusterRoleSelectors {
		sel, err := labels.SelectorFromLabelSelector(&cr.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, fmt.Errorf("ClusterRole %s: selector %d: %w", cr.Name, i, err)
		}
		matched := r.roles.List(sel)
		slices.SortFunc(matched, func(a, b *rbac.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
		for _, m := range matched {
			if m.Name == cr.Name {
				continue
			}
			for _, rule := range m.Rules {
				if !slices.ContainsFunc(out, func(have rbac.PolicyRule) bool { return reflect.DeepEqual(have, rule) }) {
					out = append(out, rule)
				}
			}
		}
	}
	return out, nil
}
