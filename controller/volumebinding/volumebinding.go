package volumebinding

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Annotations the controller writes.
const (
	// AnnBindCompleted marks a claim whose binding the controller finished.
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	// AnnBoundByController marks a binding the controller chose.
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"
	// AnnProvisionedBy names the provisioner that created a volume; the
	// controller leaves the deletion of such a volume to its provisioner.
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
)

// Config configures the controller. The zero value is usable. Dynamic
// provisioning is a provisioner's (controller/localpath): this controller
// binds the volumes it creates, pre-bound to their claims.
type Config struct {
	// Recorder records the claims' WaitForFirstConsumer and
	// ExternalProvisioning Events; default the manager's.
	Recorder record.Recorder
	// Workers is how many claims and volumes are handled at once; default 1
	// (binding decisions are then never made concurrently).
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller binds claims to volumes and reclaims released ones: a *controller.Controller (Run it, or add it to
// its Manager) over the manager's informers of PersistentVolumeClaims
// and PersistentVolumes, writing through the manager's client. Safe for
// concurrent use.
type Controller struct {
	*controller.Controller
	opts    Config
	client  *client.Client
	claims  informer.Lister[*core.PersistentVolumeClaim]
	volumes informer.Lister[*core.PersistentVolume]
	classes informer.Lister[*storage.StorageClass]
	rec     record.Recorder
	log     *slog.Logger
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the volume binding controller over m's shared informers of
// PersistentVolumeClaims and PersistentVolumes, writing through m's client;
// add it to m (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	pvcInf, err := controller.InformerFor[core.PersistentVolumeClaim](m, "")
	if err != nil {
		return nil, err
	}
	pvInf, err := controller.InformerFor[core.PersistentVolume](m, "")
	if err != nil {
		return nil, err
	}
	scInf, err := controller.InformerFor[storage.StorageClass](m, "")
	if err != nil {
		return nil, err
	}
	c := &Controller{opts: cfg, client: m.Client(), claims: pvcInf.Lister(), volumes: pvInf.Lister(), classes: scInf.Lister(),
		rec: cfg.Recorder, log: cfg.Logger.With("controller", "volumebinding")}
	if c.rec == nil {
		if c.rec, err = m.Recorder("persistentvolume-controller"); err != nil {
			return nil, err
		}
	}
	ctrl, err := controller.New("volumebinding", c, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.Watch(ctrl, pvcInf, claimRequests)
	controller.Watch(ctrl, pvInf, c.volumeRequests)
	controller.Watch(ctrl, scInf, func(*storage.StorageClass) []controller.Request { return c.unboundClaims() })
	c.Controller = ctrl
	return c, nil
}

// claimRequests maps a claim to itself and to its volume (which a
// deleted claim releases).
func claimRequests(pvc *core.PersistentVolumeClaim) []controller.Request {
	reqs := []controller.Request{{Namespace: pvc.Namespace, Name: pvc.Name}}
	if pvc.Spec.VolumeName != "" {
		reqs = append(reqs, controller.Request{Name: pvc.Spec.VolumeName})
	}
	return reqs
}

// volumeRequests maps a volume to itself and to what it may concern: the
// claim it names, or, when it is free, every claim still waiting.
func (c *Controller) volumeRequests(pv *core.PersistentVolume) []controller.Request {
	reqs := []controller.Request{{Name: pv.Name}}
	if r := pv.Spec.ClaimRef; r != nil {
		return append(reqs, controller.Request{Namespace: r.Namespace, Name: r.Name})
	}
	return append(reqs, c.unboundClaims()...)
}

// unboundClaims are the requests of every claim still waiting.
func (c *Controller) unboundClaims() []controller.Request {
	var reqs []controller.Request
	for _, pvc := range c.claims.List(nil) {
		if pvc.Spec.VolumeName == "" && pvc.DeletionTimestamp == nil {
			reqs = append(reqs, controller.Request{Namespace: pvc.Namespace, Name: pvc.Name})
		}
	}
	return reqs
}

// Reconcile handles a claim (a request with a namespace) or a volume
// (without).
func (c *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	if req.Namespace == "" {
		pv, err := c.volumes.Get("", req.Name)
		if errors.Is(err, informer.ErrNotFound) {
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		return controller.Result{}, c.syncVolume(ctx, pv)
	}
	pvc, err := c.claims.Get(req.Namespace, req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil || pvc.DeletionTimestamp != nil {
		return controller.Result{}, err
	}
	return controller.Result{}, c.syncClaim(ctx, pvc)
}
