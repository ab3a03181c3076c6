package approver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/orkit/orkit/api/authorization"
	certs "github.com/orkit/orkit/api/certificates"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/certificates"
	"github.com/orkit/orkit/informer"
)

// Name is the controller's name.
const Name = "csrapproving"

// ErrInvalidConfig reports a Config New cannot use.
var ErrInvalidConfig = errors.New("approver: invalid config")

// Config configures the approver; the zero value is usable.
type Config struct {
	// ApproveKubeletServing approves kubelet serving certificate requests
	// a node makes for itself whose IP names are among its Node's
	// status.addresses and whose DNS names are its name or among its
	// Hostname/InternalDNS/ExternalDNS addresses; false (the default, as
	// Kubernetes) leaves them to a person.
	ApproveKubeletServing bool
	// Logger; default the manager's.
	Logger *slog.Logger
}

// Controller approves kubelet client certificate requests whose creator
// is allowed to have them approved. It is a controller.Runnable; make it
// with New and add it to its Manager. Safe for concurrent use.
type Controller struct {
	*controller.Controller
	client *client.Client
	csrs   informer.Lister[*certs.CertificateSigningRequest]
	log    *slog.Logger
	cfg    Config
}

// New makes the approver over m's CertificateSigningRequest informer,
// asking SubjectAccessReviews and approving through m's client; add it to
// m (m.Add) to run it while m leads. It fails with ErrInvalidConfig
// without a manager.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	inf, err := controller.InformerFor[certs.CertificateSigningRequest](m, "")
	if err != nil {
		return nil, err
	}
	a := &Controller{client: m.Client(), csrs: inf.Lister(), log: cfg.Logger.With("controller", Name), cfg: cfg}
	c, err := controller.New(Name, controller.ReconcilerFunc(a.reconcile), controller.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects[*certs.CertificateSigningRequest](c, inf)
	a.Controller = c
	return a, nil
}

// recognizer is one kind of request the approver knows, with the
// subresource whose create right its creator needs.
type recognizer struct {
	subresource string
	matches     func(csr *certs.CertificateSigningRequest, cn string) bool
	message     string
}

var recognizers = []recognizer{
	{"selfnodeclient", func(csr *certs.CertificateSigningRequest, cn string) bool { return csr.Spec.Username == cn },
		"Auto approving self kubelet client certificate after SubjectAccessReview."},
	{"nodeclient", func(*certs.CertificateSigningRequest, string) bool { return true },
		"Auto approving kubelet client certificate after SubjectAccessReview."},
}

func (a *Controller) reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	csr, err := a.csrs.Get("", req.Name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	serving := a.cfg.ApproveKubeletServing && csr.Spec.SignerName == certs.KubeletServingSignerName
	if (csr.Spec.SignerName != certs.KubeAPIServerClientKubeletSignerName && !serving) ||
		csr.HasCondition(certs.CertificateApproved) || csr.HasCondition(certs.CertificateDenied) {
		return controller.Result{}, nil
	}
	x509cr, err := certs.ParseRequest(csr.Spec.Request)
	if err != nil {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("csr %s: %w", csr.Name, err))
	}
	if serving {
		return a.reconcileServing(ctx, csr, x509cr)
	}
	if certificates.CheckNodeClient(x509cr, csr.Spec.Usages) != nil {
		return controller.Result{}, nil // not ours to approve
	}
	for _, r := range recognizers {
		if !r.matches(csr, x509cr.Subject.CommonName) {
			continue
		}
		ok, err := a.authorized(ctx, csr, r.subresource)
		if err != nil {
			return controller.Result{}, err
		}
		if ok {
			return controller.Result{}, a.approve(ctx, csr, r.message)
		}
	}
	return controller.Result{}, nil
}

// authorized asks whether the request's creator may create
// certificatesigningrequests/<subresource>.
func (a *Controller) authorized(ctx context.Context, csr *certs.CertificateSigningRequest, subresource string) (bool, error) {
	sar := &authorization.SubjectAccessReview{Spec: authorization.SubjectAccessReviewSpec{
		User: csr.Spec.Username, UID: csr.Spec.UID, Groups: csr.Spec.Groups,
		ResourceAttributes: &authorization.ResourceAttributes{Group: certs.GroupName, Resource: "certificatesigningrequests",
			Subresource: subresource, Verb: "create"},
	}}
	if len(csr.Spec.Extra) > 0 {
		sar.Spec.Extra = map[string]authorization.ExtraValue{}
		for k, v := range csr.Spec.Extra {
			sar.Spec.Extra[k] = authorization.ExtraValue(v)
		}
	}
	out, err := client.For[authorization.SubjectAccessReview](a.client, "").Create(ctx, sar)
	if err != nil {
		return false, fmt.Errorf("subject access review for csr %s: %w", csr.Name, err)
	}
	return out.Status.Allowed, nil
}

// approve adds the Approved condition through the approval subresource.
func (a *Controller) approve(ctx context.Context, csr *certs.CertificateSigningRequest, message string) error {
	next := meta.DeepCopy(csr)
	next.Status.Conditions = append(next.Status.Conditions, certs.CertificateSigningRequestCondition{
		Type: certs.CertificateApproved, Status: meta.ConditionTrue, Reason: "AutoApproved", Message: message,
		LastUpdateTime: meta.Now(),
	})
	_, err := client.For[certs.CertificateSigningRequest](a.client, "").UpdateSubresource(ctx, next, "approval")
	if err != nil {
		return fmt.Errorf("approve csr %s: %w", csr.Name, err)
	}
	a.log.Info("approved", "csr", csr.Name, "requestor", csr.Spec.Username)
	return nil
}
