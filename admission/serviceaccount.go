package admission

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

// ServiceAccountName is the name of the ServiceAccount plugin.
const ServiceAccountName = "ServiceAccount"

// DefaultServiceAccount is the account a pod runs as when it names none;
// the service account controller keeps one in every namespace.
const DefaultServiceAccount = "default"

// ServiceAccountGetter reads ServiceAccounts. GetServiceAccount returns an
// error for which api/errors.IsNotFound holds when the account does not
// exist. Returned objects are shared: the plugin never changes them.
// Implementations must be safe for concurrent use.
type ServiceAccountGetter interface {
	GetServiceAccount(ctx context.Context, namespace, name string) (*core.ServiceAccount, error)
}

// ServiceAccount gives new pods their service account, as Kubernetes'
// ServiceAccount plugin does: a pod that names none runs as "default";
// a pod naming an account that does not exist is refused (403 `error
// looking up service account ns/name: ...`); a pod without
// imagePullSecrets gets its account's. Mirror pods are left alone.
//
// Unlike Kubernetes it admits a pod whose namespace has no "default"
// account yet (the controller creates it moments after the namespace),
// and it mounts no API token: orkit has no service account tokens.
//
// A ServiceAccount holds no state and is safe for concurrent use.
type ServiceAccount struct {
	Handler
	accounts ServiceAccountGetter
}

var _ Mutator = (*ServiceAccount)(nil)

// NewServiceAccount returns the plugin reading accounts from accounts.
func NewServiceAccount(accounts ServiceAccountGetter) *ServiceAccount {
	return &ServiceAccount{Handler: Handler{PluginName: ServiceAccountName, Operations: []Operation{Create}}, accounts: accounts}
}

// Admit implements Mutator for pod creates.
func (s *ServiceAccount) Admit(ctx context.Context, a *Attributes) error {
	if a.Subresource != "" || a.Object == nil || a.Resource.GroupResource() != podsResource {
		return nil
	}
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return wrongType(a, "Pod")
	}
	if _, mirror := pod.Annotations[core.AnnotationMirrorPod]; mirror {
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = orDefault(pod.Spec.DeprecatedServiceAccount, DefaultServiceAccount)
	}
	if pod.Spec.DeprecatedServiceAccount == "" {
		pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	}
	name := pod.Spec.ServiceAccountName
	sa, err := s.accounts.GetServiceAccount(ctx, a.Namespace, name)
	switch {
	case apierrors.IsNotFound(err) && name == DefaultServiceAccount:
		return nil
	case err != nil:
		return forbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, name, err))
	}
	if len(pod.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		pod.Spec.ImagePullSecrets = append([]core.LocalObjectReference(nil), sa.ImagePullSecrets...)
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
