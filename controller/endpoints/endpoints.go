package endpoints

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Config configures the controller. The zero value is usable.
type Config struct {
	// Workers reconcile different Services at once; default 5.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller keeps Endpoints in step with Services and pods. It is a
// *controller.Controller (add it to the Manager it was made on, or Run it)
// reconciling with its own Reconcile. Make one with New; safe for
// concurrent use by the controller's workers.
type Controller struct {
	*controller.Controller
	client    *client.Client
	services  informer.Lister[*core.Service]
	pods      informer.Lister[*core.Pod]
	endpoints informer.Lister[*core.Endpoints]
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the Endpoints controller over m's shared informers of Services,
// Pods and Endpoints, writing through m's client; add it to m (m.Add) to
// run it while m leads, or Run it. It fails with ErrInvalidConfig without a
// manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	svcInf, err := controller.InformerFor[core.Service](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	epInf, err := controller.InformerFor[core.Endpoints](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), services: svcInf.Lister(), pods: podInf.Lister(), endpoints: epInf.Lister()}
	c, err := controller.New("endpoints", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, svcInf)
	controller.Watch(c, epInf, r.endpointsService) // repair edits of managed Endpoints
	controller.Watch(c, podInf, r.podServices)
	r.Controller = c
	return r, nil
}

// endpointsService maps an Endpoints object to its Service when that
// exists: Endpoints without a Service are someone else's (written by hand or
// by another controller, as the conformance suite does) and are left alone,
// as kube-controller-manager leaves them; the Service's deletion is what
// deletes the Endpoints this controller wrote.
func (r *Controller) endpointsService(ep *core.Endpoints) []controller.Request {
	if _, err := r.services.Namespace(ep.Namespace).Get(ep.Name); err != nil {
		return nil
	}
	return []controller.Request{{Namespace: ep.Namespace, Name: ep.Name}}
}

// podServices maps a pod to the Services of its namespace selecting it.
func (r *Controller) podServices(pod *core.Pod) []controller.Request {
	var out []controller.Request
	for _, svc := range r.services.Namespace(pod.Namespace).List(nil) {
		if len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			out = append(out, controller.Request{Namespace: svc.Namespace, Name: svc.Name})
		}
	}
	return out
}

// Reconcile writes the Endpoints of one Service.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	eps := client.For[core.Endpoints](r.client, req.Namespace)
	svc, err := r.services.Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		if _, err := r.endpoints.Namespace(req.Namespace).Get(req.Name); err == nil {
			if err := eps.Delete(ctx, req.Name, nil); err != nil && !apierrors.IsNotFound(err) {
				return controller.Result{}, fmt.Errorf("delete endpoints %s: %w", req, err)
			}
		}
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if len(svc.Spec.Selector) == 0 || svc.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	want := Subsets(svc, r.pods.Namespace(svc.Namespace).List(sel))
	lbls := maps.Clone(svc.Labels)
	if svc.Spec.ClusterIP == "None" {
		if lbls == nil {
			lbls = map[string]string{}
		}
		lbls["service.kubernetes.io/headless"] = ""
	}
	cur, err := r.endpoints.Namespace(svc.Namespace).Get(svc.Name)
	if errors.Is(err, informer.ErrNotFound) {
		ep := &core.Endpoints{ObjectMeta: meta.ObjectMeta{Name: svc.Name, Namespace: svc.Namespace, Labels: lbls}, Subsets: want}
		if _, err := eps.Create(ctx, ep); err != nil && !apierrors.IsAlreadyExists(err) {
			return controller.Result{}, fmt.Errorf("create endpoints %s: %w", req, err)
		}
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if subsetsEqual(cur.Subsets, want) && maps.Equal(cur.Labels, lbls) {
		return controller.Result{}, nil
	}
	upd := meta.DeepCopy(cur)
	upd.Subsets, upd.Labels = want, lbls
	if _, err := eps.Update(ctx, upd); err != nil {
		return controller.Result{}, fmt.Errorf("update endpoints %s: %w", req, err)
	}
	return controller.Result{}, nil
}

func subsetsEqual(a, b []core.EndpointSubset) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
