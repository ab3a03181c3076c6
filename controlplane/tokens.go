package controlplane

import (
	"crypto"
	"fmt"
	"path/filepath"

	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/pki"
)

// ServiceAccountConfig chooses how the API server issues and verifies
// service-account tokens, field for field like kube-apiserver's
// --service-account-* flags. The zero value issues tokens as
// https://kubernetes.default.svc.cluster.local, signed with the P-256 key
// in DataDir/sa.key (created on first start; give several API
// servers the same file and they accept each other's tokens), for that
// issuer as the one API audience.
type ServiceAccountConfig struct {
	// Issuer (--service-account-issuer) is the iss of the tokens and the
	// issuer OIDC discovery announces; default
	// authn.DefaultServiceAccountIssuer.
	Issuer string
	// SigningKeyFile (--service-account-signing-key-file) is the PEM
	// private key (ECDSA P-256 or RSA >= 2048 bits) tokens are signed
	// with; default DataDir/sa.key, created when missing. A file
	// given here must exist.
	SigningKeyFile string
	// KeyFiles (--service-account-key-file) hold more public keys tokens
	// may be verified with (a previous signing key's, another issuer
	// sharing this one's name).
	KeyFiles []string
	// APIAudiences (--api-audiences) are the audiences the API server
	// accepts and a TokenRequest gets by default; default [Issuer].
	APIAudiences []string
	// MountTokenVolume makes the default admission chain's ServiceAccount
	// plugin mount the API access volume (kube-api-access-*: a token,
	// ca.crt of kube-root-ca.crt, the namespace) in every pod, as
	// Kubernetes does (admission.WithTokenVolume). Kubelets then need the
	// root CA publisher running (controller/standard's RootCACert) to
	// start such pods. The zero value mounts nothing: a cluster without
	// the controller manager still starts pods. Ignored when
	// Config.Admission is set.
	MountTokenVolume bool
}

// tokenIssuer builds the service-account token issuer of cfg. Errors
// (an unreadable or unusable key, a bad issuer) wrap ErrInvalidConfig.
func (cfg *Config) tokenIssuer() (*authn.TokenIssuer, error) {
	sa := cfg.ServiceAccounts
	var (
		key crypto.Signer
		err error
	)
	if sa.SigningKeyFile == "" {
		key, err = pki.LoadOrCreateSigningKey(filepath.Join(cfg.DataDir, "sa.key"))
	} else {
		key, err = pki.LoadSigningKey(sa.SigningKeyFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: service-account-signing-key-file: %w", ErrInvalidConfig, err)
	}
	var pubs []crypto.PublicKey
	for _, f := range sa.KeyFiles {
		keys, err := pki.LoadPublicKeys(f)
		if err != nil {
			return nil, fmt.Errorf("%w: service-account-key-file: %w", ErrInvalidConfig, err)
		}
		pubs = append(pubs, keys...)
	}
	ti, err := authn.NewTokenIssuer(authn.TokenIssuerConfig{
		Issuer: sa.Issuer, SigningKey: key, PublicKeys: pubs, APIAudiences: sa.APIAudiences,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return ti, nil
}
