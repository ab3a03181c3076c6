package localpath

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Names and annotations of the provisioner.
const (
	// ProvisionerName is the default Config.Provisioner: the
	// provisioner field of the StorageClasses this controller serves.
	ProvisionerName = "orkit.io/local-path"
	// DefaultClassName is the name of the class EnsureClass creates in
	// the minicluster, as k3s names its class.
	DefaultClassName = "local-path"
	// AnnProvisionedBy names the provisioner that created a volume
	// (Kubernetes' pv.kubernetes.io/provisioned-by).
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
	// LabelHelperVolume on a helper pod names the volume it cleans up.
	LabelHelperVolume = "orkit.io/local-path-volume"
	// DefaultHelperImage is the default Config.HelperImage: orkit's
	// multi-call tool, whose "rm-dir" removes a directory tree.
	DefaultHelperImage = "orkit.local/hello:v1"
	// DefaultHelperNamespace is the default Config.HelperNamespace.
	DefaultHelperNamespace = "kube-system"
	// Component is the source of the Events the provisioner records.
	Component = "local-path-provisioner"
)

// Config configures the provisioner. BaseDir is required; every other
// zero value means the documented default.
type Config struct {
	// Provisioner is the provisioner name of the classes served; default
	// ProvisionerName.
	Provisioner string
	// BaseDir is the absolute directory, on every node, under which
	// volumes' directories are made (one per volume). Required.
	BaseDir string
	// HelperImage is the image of the cleanup pods; default
	// DefaultHelperImage. HelperCommand is their command, given the
	// directory to remove as its last argument; default
	// ["/hello", "rm-dir"].
	HelperImage   string
	HelperCommand []string
	// HelperNamespace is where cleanup pods run; default kube-system.
	HelperNamespace string
	// Workers is how many claims and volumes are handled at once; default 1.
	Workers int
	// Recorder records the Provisioning, ProvisioningSucceeded,
	// ProvisioningFailed and VolumeFailedDelete Events; default the
	// manager's.
	Recorder record.Recorder
	// Logger; default the manager's.
	Logger *slog.Logger
}

// Controller is the local-path provisioner: a *controller.Controller (Run
// it, or add it to its Manager) over the manager's informers of claims,
// volumes, StorageClasses, nodes and the helper pods, writing through the
// manager's client. Safe for concurrent use.
type Controller struct {
	*controller.Controller
	cfg     Config
	client  *client.Client
	claims  informer.Lister[*core.PersistentVolumeClaim]
	volumes informer.Lister[*core.PersistentVolume]
	classes informer.Lister[*storage.StorageClass]
	nodes   informer.Lister[*core.Node]
	pods    informer.Lister[*core.Pod]
	rec     record.Recorder
	log     *slog.Logger
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the provisioner over m's shared informers; add it to m
// (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager or without an absolute BaseDir, and
// when an informer or the recorder cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if err := cfg.fill(m); err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, client: m.Client(), rec: cfg.Recorder, log: cfg.Logger.With("controller", "localpath")}
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
	nodeInf, err := controller.InformerFor[core.Node](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	c.claims, c.volumes, c.classes, c.nodes, c.pods = pvcInf.Lister(), pvInf.Lister(), scInf.Lister(), nodeInf.Lister(), podInf.Lister()
	if c.rec == nil {
		if c.rec, err = m.Recorder(Component); err != nil {
			return nil, err
		}
	}
	ctrl, err := controller.New("localpath", c, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.Watch(ctrl, pvcInf, claimRequest)
	controller.Watch(ctrl, pvInf, volumeRequest)
	controller.Watch(ctrl, scInf, c.waitingClaims)
	controller.Watch(ctrl, nodeInf, func(*core.Node) []controller.Request { return c.waitingClaims(nil) })
	controller.Watch(ctrl, podInf, c.helperRequest)
	c.Controller = ctrl
	return c, nil
}

func (cfg *Config) fill(m *controller.Manager) error {
	if cfg.BaseDir == "" || !filepath.IsAbs(cfg.BaseDir) {
		return fmt.Errorf("%w: BaseDir must be an absolute directory, got %q", ErrInvalidConfig, cfg.BaseDir)
	}
	cfg.BaseDir = filepath.Clean(cfg.BaseDir)
	if cfg.Provisioner == "" {
		cfg.Provisioner = ProvisionerName
	}
	if cfg.HelperImage == "" {
		cfg.HelperImage = DefaultHelperImage
	}
	if len(cfg.HelperCommand) == 0 {
		cfg.HelperCommand = []string{"/hello", "rm-dir"}
	}
	if cfg.HelperNamespace == "" {
		cfg.HelperNamespace = DefaultHelperNamespace
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	return nil
}

// claimRequest maps a claim to itself.
func claimRequest(pvc *core.PersistentVolumeClaim) []controller.Request {
	return []controller.Request{{Namespace: pvc.Namespace, Name: pvc.Name}}
}

// volumeRequest maps a volume to itself (a request without namespace).
func volumeRequest(pv *core.PersistentVolume) []controller.Request {
	return []controller.Request{{Name: pv.Name}}
}

// waitingClaims maps a class (or a node change) to the unbound claims,
// which may now be provisioned.
func (c *Controller) waitingClaims(*storage.StorageClass) []controller.Request {
	var reqs []controller.Request
	for _, pvc := range c.claims.List(nil) {
		if pvc.Spec.VolumeName == "" && pvc.DeletionTimestamp == nil {
			reqs = append(reqs, controller.Request{Namespace: pvc.Namespace, Name: pvc.Name})
		}
	}
	return reqs
}

// helperRequest maps a helper pod to the volume it cleans up.
func (c *Controller) helperRequest(pod *core.Pod) []controller.Request {
	if pod.Namespace != c.cfg.HelperNamespace || pod.Labels[LabelHelperVolume] == "" {
		return nil
	}
	return []controller.Request{{Name: pod.Labels[LabelHelperVolume]}}
}

// Reconcile provisions for a claim (a request with a namespace) or
// cleans up a volume (without).
func (c *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	if req.Namespace == "" {
		pv, err := c.volumes.Get("", req.Name)
		if errors.Is(err, informer.ErrNotFound) {
			return controller.Result{}, c.deleteHelper(ctx, req.Name)
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
	if err != nil || pvc.DeletionTimestamp != nil || pvc.Spec.VolumeName != "" {
		return controller.Result{}, err
	}
	return controller.Result{}, c.syncClaim(ctx, pvc)
}

// volumeDir is the directory of a volume for a claim, as k3s names it:
// <volume>_<namespace>_<claim>.
func (c *Controller) volumeDir(volume string, pvc *core.PersistentVolumeClaim) string {
	return filepath.Join(c.cfg.BaseDir, strings.Join([]string{volume, pvc.Namespace, pvc.Name}, "_"))
}
