package admission

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

// ServiceAccountName is the name of the ServiceAccount plugin.
const ServiceAccountName = "ServiceAccount"

// DefaultServiceAccount is the account a pod runs as when it names none;
// the service account controller keeps one in every namespace.
const DefaultServiceAccount = "default"

// The API access volume, as Kubernetes' ServiceAccount plugin adds it.
const (
	// TokenVolumePrefix starts the name of the volume:
	// kube-api-access-<5 random characters>.
	TokenVolumePrefix = "kube-api-access-"
	// TokenMountPath is where every container mounts it.
	TokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// TokenExpirationSeconds is the lifetime the projected token asks
	// for (kube's 3607: an hour and the 7 seconds that mark a kubelet's
	// request).
	TokenExpirationSeconds int64 = 3607
	// RootCAConfigMap is the ConfigMap holding the cluster CA bundle
	// under "ca.crt", published in every namespace by the root CA
	// publisher (controller/rootcacert).
	RootCAConfigMap = "kube-root-ca.crt"
)

// ServiceAccountOption is an optional knob of NewServiceAccount.
type ServiceAccountOption func(*ServiceAccount)

// WithTokenVolume makes the plugin mount the API access volume, as
// Kubernetes does by default: unless automountServiceAccountToken (the
// pod's, else the account's) is false, every container and init
// container without a mount at TokenMountPath mounts a projected volume
// kube-api-access-xxxxx read-only there, holding a token of the pod's
// account (TokenExpirationSeconds, bound to the pod by the kubelet),
// ca.crt from RootCAConfigMap and the namespace. Without it the plugin
// mounts nothing (the kubelets then need neither the ConfigMap nor the
// right to request tokens).
func WithTokenVolume() ServiceAccountOption { return func(s *ServiceAccount) { s.mountToken = true } }

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
// With WithTokenVolume it also mounts the API access volume as
// Kubernetes does. Unlike Kubernetes it admits a pod whose namespace has
// no "default" account yet (the controller creates it moments after the
// namespace).
//
// A ServiceAccount holds no state and is safe for concurrent use.
type ServiceAccount struct {
	Handler
	accounts   ServiceAccountGetter
	mountToken bool
}

var _ Mutator = (*ServiceAccount)(nil)

// NewServiceAccount returns the plugin reading accounts from accounts.
func NewServiceAccount(accounts ServiceAccountGetter, opts ...ServiceAccountOption) *ServiceAccount {
	s := &ServiceAccount{Handler: Handler{PluginName: ServiceAccountName, Operations: []Operation{Create}}, accounts: accounts}
	for _, o := range opts {
		o(s)
	}
	return s
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
		sa = &core.ServiceAccount{}
	case err != nil:
		return forbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, name, err))
	}
	if s.mountToken && automount(sa, pod) {
		mountTokenVolume(pod)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		pod.Spec.ImagePullSecrets = append([]core.LocalObjectReference(nil), sa.ImagePullSecrets...)
	}
	return nil
}

// automount reports whether pod gets the API access volume: the pod's
// automountServiceAccountToken, else the account's, else true.
func automount(sa *core.ServiceAccount, pod *core.Pod) bool {
	if p := pod.Spec.AutomountServiceAccountToken; p != nil {
		return *p
	}
	if p := sa.AutomountServiceAccountToken; p != nil {
		return *p
	}
	return true
}

// mountTokenVolume mounts the API access volume (an existing
// kube-api-access-* volume of the pod, else a new one) in every
// container and init container that has nothing at TokenMountPath, and
// adds the volume when one does.
func mountTokenVolume(pod *core.Pod) {
	name := ""
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, TokenVolumePrefix) {
			name = v.Name
			break
		}
	}
	has := name != ""
	if !has {
		name = TokenVolumePrefix + randomSuffix()
	}
	mount := core.VolumeMount{Name: name, ReadOnly: true, MountPath: TokenMountPath}
	needed := false
	for _, cs := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if !mountsAt(cs[i].VolumeMounts, TokenMountPath) {
				cs[i].VolumeMounts = append(cs[i].VolumeMounts, mount)
				needed = true
			}
		}
	}
	if needed && !has {
		pod.Spec.Volumes = append(pod.Spec.Volumes, core.Volume{Name: name, VolumeSource: core.VolumeSource{Projected: TokenVolumeSource()}})
	}
}

func mountsAt(ms []core.VolumeMount, path string) bool {
	for _, m := range ms {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// TokenVolumeSource returns the projected source of the API access
// volume, as Kubernetes writes it: the token (path "token",
// TokenExpirationSeconds), ca.crt of RootCAConfigMap and the namespace
// (downward API), mode 0644. Each call returns a new value.
func TokenVolumeSource() *core.ProjectedVolumeSource {
	mode, exp := core.SecretVolumeDefaultMode, TokenExpirationSeconds
	return &core.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []core.VolumeProjection{
			{ServiceAccountToken: &core.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &exp}},
			{ConfigMap: &core.ConfigMapProjection{LocalObjectReference: core.LocalObjectReference{Name: RootCAConfigMap},
				Items: []core.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &core.DownwardAPIProjection{Items: []core.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &core.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}
}

// randomSuffix returns 5 characters of the alphabet Kubernetes' generated
// names use (no vowels, no look-alike digits).
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
