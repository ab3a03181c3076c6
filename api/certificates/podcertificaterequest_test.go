package certificates

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

func newPCR(t *testing.T) (*PodCertificateRequest, crypto.Signer) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	require.NoError(t, err)
	r := &PodCertificateRequest{ObjectMeta: meta.ObjectMeta{Name: "req-1", Namespace: "ns", ResourceVersion: "1"},
		Spec: PodCertificateRequestSpec{SignerName: "example.com/e2e", PodName: "p", PodUID: "u1", ServiceAccountName: "default",
			ServiceAccountUID: "u2", NodeName: "n", NodeUID: "u3", StubPKCS10Request: der}}
	DefaultPodCertificateRequest(r)
	return r, key
}

// issue fills r's status with a certificate for pub valid from nb for life.
func issue(t *testing.T, r *PodCertificateRequest, pub crypto.PublicKey, nb time.Time, life time.Duration) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	nb = nb.Truncate(time.Second)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "leaf"}, NotBefore: nb, NotAfter: nb.Add(life)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, caKey)
	require.NoError(t, err)
	r.Status = PodCertificateRequestStatus{
		Conditions:       []meta.Condition{{Type: "Issued", Status: meta.ConditionTrue, Reason: "R", LastTransitionTime: meta.Time{Time: nb}}},
		CertificateChain: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		NotBefore:        &meta.Time{Time: nb}, NotAfter: &meta.Time{Time: nb.Add(life)},
		BeginRefreshAt: &meta.Time{Time: nb.Add(life / 2)},
	}
}

func TestValidatePodCertificateRequest(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(r *PodCertificateRequest)
		wantErr string
	}{
		{name: "valid", mutate: func(*PodCertificateRequest) {}},
		{name: "no signer", mutate: func(r *PodCertificateRequest) { r.Spec.SignerName = "" }, wantErr: "spec.signerName: Required"},
		{name: "bad pod name", mutate: func(r *PodCertificateRequest) { r.Spec.PodName = "Bad_Name" }, wantErr: "spec.podName"},
		{name: "empty uid", mutate: func(r *PodCertificateRequest) { r.Spec.NodeUID = "" }, wantErr: "spec.nodeUID"},
		{name: "too short", mutate: func(r *PodCertificateRequest) { v := int32(3599); r.Spec.MaxExpirationSeconds = &v }, wantErr: "must be in the range [3600, 7862400]"},
		{name: "kubernetes.io signer over a day", mutate: func(r *PodCertificateRequest) {
			r.Spec.SignerName = "kubernetes.io/x"
			v := int32(86401)
			r.Spec.MaxExpirationSeconds = &v
		}, wantErr: "[3600, 86400]"},
		{name: "junk request", mutate: func(r *PodCertificateRequest) { r.Spec.StubPKCS10Request = []byte("junk") }, wantErr: "must be a valid PKCS#10 CSR"},
		{name: "no request", mutate: func(r *PodCertificateRequest) { r.Spec.StubPKCS10Request = nil }, wantErr: "exactly one of"},
		{name: "oversized request", mutate: func(r *PodCertificateRequest) { r.Spec.StubPKCS10Request = make([]byte, MaxStubPKCS10RequestSize+1) }, wantErr: "may not be more than"},
		{name: "bad annotation key", mutate: func(r *PodCertificateRequest) { r.Spec.UnverifiedUserAnnotations = map[string]string{"nodomain": "x"} }, wantErr: "domain-prefixed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newPCR(t)
			tt.mutate(r)
			errs := ValidatePodCertificateRequest(r)
			if tt.wantErr == "" {
				assert.Empty(t, errs)
				return
			}
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.wantErr)
		})
	}
}

func TestValidatePodCertificateRequestStatus(t *testing.T) {
	now := time.Now()
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tests := []struct {
		name    string
		mutate  func(r, old *PodCertificateRequest, key crypto.Signer)
		wantErr string
	}{
		{name: "issued", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) { issue(t, r, k.Public(), now, time.Hour) }},
		{name: "denied", mutate: func(r, _ *PodCertificateRequest, _ crypto.Signer) {
			r.Status.Conditions = []meta.Condition{{Type: "Denied", Status: meta.ConditionTrue, Reason: "No", LastTransitionTime: meta.Time{Time: now}}}
		}},
		{name: "denied with a chain", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now, time.Hour)
			r.Status.Conditions[0].Type = "Denied"
		}, wantErr: "non-condition status fields must be empty"},
		{name: "two terminal conditions", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now, time.Hour)
			r.Status.Conditions = append(r.Status.Conditions, meta.Condition{Type: "Failed", Status: meta.ConditionTrue, Reason: "R", LastTransitionTime: meta.Time{Time: now}})
		}, wantErr: "at most one condition"},
		{name: "unknown condition", mutate: func(r, _ *PodCertificateRequest, _ crypto.Signer) {
			r.Status.Conditions = []meta.Condition{{Type: "Approved", Status: meta.ConditionTrue, Reason: "R", LastTransitionTime: meta.Time{Time: now}}}
		}, wantErr: "Unsupported value"},
		{name: "false status", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now, time.Hour)
			r.Status.Conditions[0].Status = meta.ConditionFalse
		}, wantErr: "status.conditions[0].status"},
		{name: "other key", mutate: func(r, _ *PodCertificateRequest, _ crypto.Signer) { issue(t, r, other.Public(), now, time.Hour) },
			wantErr: "not issued to the requested public key"},
		{name: "too long", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) { issue(t, r, k.Public(), now, 25*time.Hour) },
			wantErr: "lifetime must be <= spec.maxExpirationSeconds (86400)"},
		{name: "too short", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) { issue(t, r, k.Public(), now, 30*time.Minute) },
			wantErr: "lifetime must be >= 1 hour"},
		{name: "stale notBefore", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now.Add(-time.Hour), 2*time.Hour)
		},
			wantErr: "within 5 minutes"},
		{name: "notAfter mismatch", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now, time.Hour)
			r.Status.NotAfter = &meta.Time{Time: r.Status.NotAfter.Add(time.Second)}
		}, wantErr: "NotAfter time encoded"},
		{name: "refresh too late", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now, time.Hour)
			r.Status.BeginRefreshAt = &meta.Time{Time: r.Status.NotAfter.Add(-time.Minute)}
		}, wantErr: "10 minutes before status.notAfter"},
		{name: "chain junk", mutate: func(r, _ *PodCertificateRequest, k crypto.Signer) {
			issue(t, r, k.Public(), now, time.Hour)
			r.Status.CertificateChain = "junk"
		}, wantErr: "at least one certificate"},
		{name: "change after issued", mutate: func(r, old *PodCertificateRequest, k crypto.Signer) {
			issue(t, old, k.Public(), now, time.Hour)
			issue(t, r, k.Public(), now, 2*time.Hour)
		}, wantErr: "immutable after PodCertificateRequest is issued"},
		{name: "same after issued", mutate: func(r, old *PodCertificateRequest, k crypto.Signer) {
			issue(t, old, k.Public(), now, time.Hour)
			r.Status = old.Status
		}},
		{name: "pending change", mutate: func(r, _ *PodCertificateRequest, _ crypto.Signer) { r.Status.CertificateChain = "x" },
			wantErr: "status is immutable unless"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, key := newPCR(t)
			r := *old
			o := *old
			tt.mutate(&r, &o, key)
			errs := ValidatePodCertificateRequestUpdate(&r, &o, now)
			if tt.wantErr == "" {
				assert.Empty(t, errs)
				return
			}
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.wantErr)
		})
	}
}

func TestPodCertificateRequestSpecImmutable(t *testing.T) {
	old, _ := newPCR(t)
	r := *old
	r.Spec.PodName = "other"
	errs := ValidatePodCertificateRequestUpdate(&r, old, time.Now())
	require.NotEmpty(t, errs)
	assert.Contains(t, errs.ToAggregate().Error(), "spec: Invalid value")
}
