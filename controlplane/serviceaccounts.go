package controlplane

import (
	"context"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/authn/bootstraptoken"
)

var serviceAccountsGVR = meta.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}

// serviceAccounts is the ServiceAccount plugin's view of the accounts: one
// read from storage per pod create (always current, a few microseconds).
// Safe for concurrent use; it holds only the server.
type serviceAccounts struct{ srv *apiserver.Server }

var _ admission.ServiceAccountGetter = serviceAccounts{}

// GetServiceAccount implements admission.ServiceAccountGetter. A missing
// account is a NotFound worded as Kubernetes' lister words it
// (`serviceaccount "x" not found`).
func (s serviceAccounts) GetServiceAccount(ctx context.Context, namespace, name string) (*core.ServiceAccount, error) {
	st, ok := s.srv.Storage(serviceAccountsGVR)
	if !ok {
		return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "serviceaccount"}, name)
	}
	obj, err := st.Get(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "serviceaccount"}, name)
	}
	if err != nil {
		return nil, err
	}
	return obj.(*core.ServiceAccount), nil
}

var secretsGVR = meta.GroupVersionResource{Version: "v1", Resource: "secrets"}

// serverSecrets reads Secrets from the API server's storage for the
// bootstrap token authenticator. srv is set once, before the server
// serves.
type serverSecrets struct{ srv *apiserver.Server }

var _ bootstraptoken.SecretGetter = (*serverSecrets)(nil)

// GetSecret implements bootstraptoken.SecretGetter.
func (s *serverSecrets) GetSecret(ctx context.Context, namespace, name string) (*core.Secret, error) {
	st, ok := s.srv.Storage(secretsGVR)
	if !ok {
		return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "secrets"}, name)
	}
	obj, err := st.Get(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*core.Secret), nil
}
