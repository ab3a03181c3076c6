package certificates

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

func testRequest(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "u"}}, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func testCertificate(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "u"}, NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func approved() CertificateSigningRequestCondition {
	return CertificateSigningRequestCondition{Type: CertificateApproved, Status: meta.ConditionTrue}
}

func TestValidate(t *testing.T) {
	req, cert := testRequest(t), testCertificate(t)
	valid := func() *CertificateSigningRequest {
		return &CertificateSigningRequest{ObjectMeta: meta.ObjectMeta{Name: "node-csr-Ab_1"},
			Spec: CertificateSigningRequestSpec{Request: req, SignerName: KubeAPIServerClientSignerName, Usages: []KeyUsage{UsageClientAuth}}}
	}
	i32 := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		name   string
		change func(*CertificateSigningRequest)
		want   []string
	}{
		{"valid", func(*CertificateSigningRequest) {}, nil},
		{"bad name", func(c *CertificateSigningRequest) { c.Name = "a/b" }, []string{"metadata.name: Invalid value: \"a/b\": may not contain '/' or '%'"}},
		{"junk request", func(c *CertificateSigningRequest) { c.Spec.Request = []byte("x") }, []string{"spec.request: Invalid value: \"\": PEM block type must be CERTIFICATE REQUEST"}},
		{"short expiration", func(c *CertificateSigningRequest) { c.Spec.ExpirationSeconds = i32(599) },
			[]string{"spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)"}},
		{"signer without path", func(c *CertificateSigningRequest) { c.Spec.SignerName = "example.com" },
			[]string{"spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"}},
		{"approved and denied", func(c *CertificateSigningRequest) {
			c.Status.Conditions = []CertificateSigningRequestCondition{approved(), {Type: CertificateDenied, Status: meta.ConditionTrue}}
		}, []string{"status.conditions: Invalid value: \"\": Approved and Denied conditions are mutually exclusive"}},
		{"approved twice", func(c *CertificateSigningRequest) {
			c.Status.Conditions = []CertificateSigningRequestCondition{approved(), approved()}
		}, []string{"status.conditions[1].type: Duplicate value: \"Approved\""}},
		{"approved false", func(c *CertificateSigningRequest) {
			c.Status.Conditions = []CertificateSigningRequestCondition{{Type: CertificateApproved, Status: meta.ConditionFalse}}
		}, []string{"status.conditions[0].status: Invalid value: \"False\": Approved conditions may only be set to True"}},
		{"certificate unapproved", func(c *CertificateSigningRequest) { c.Status.Certificate = cert },
			[]string{"status.certificate: Forbidden: may not be set unless the request is approved"}},
		{"certificate approved", func(c *CertificateSigningRequest) {
			c.Status.Conditions, c.Status.Certificate = []CertificateSigningRequestCondition{approved()}, append([]byte("text before\n"), cert...)
		}, nil},
		{"certificate junk", func(c *CertificateSigningRequest) {
			c.Status.Conditions, c.Status.Certificate = []CertificateSigningRequestCondition{approved()}, []byte("junk")
		}, []string{"status.certificate: Invalid value: \"<certificate data>\": must contain at least one CERTIFICATE PEM block"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.change(c)
			var got []string
			for _, e := range ValidateCertificateSigningRequest(c) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	old := &CertificateSigningRequest{ObjectMeta: meta.ObjectMeta{Name: "c", ResourceVersion: "1"},
		Spec:   CertificateSigningRequestSpec{Request: testRequest(t), SignerName: "example.com/s", Usages: []KeyUsage{UsageClientAuth}},
		Status: CertificateSigningRequestStatus{Conditions: []CertificateSigningRequestCondition{approved()}, Certificate: testCertificate(t)}}
	n := *old
	n.Status = CertificateSigningRequestStatus{Certificate: testCertificate(t)}
	n.Spec.SignerName = "example.com/other"
	var got []string
	for _, e := range ValidateCertificateSigningRequestUpdate(&n, old) {
		got = append(got, e.Error())
	}
	assert.Contains(t, got, `spec: Invalid value: "": field is immutable`)
	assert.Contains(t, got, `status.conditions: Forbidden: updates may not remove a condition of type "Approved"`)
	assert.Contains(t, got, "status.certificate: Forbidden: updates may not modify existing certificate content")
}

func TestWireFormat(t *testing.T) {
	s := scheme.New()
	Register(s)
	in := `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"c"},
"spec":{"request":"cmVx","signerName":"example.com/s","expirationSeconds":3600,"usages":["client auth"],"username":"u","groups":["g"],"extra":{"k":["v"]}},
"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"M","lastUpdateTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}],"certificate":"Y2VydA=="}}`
	obj, _, err := s.Decode([]byte(in))
	require.NoError(t, err)
	csr := obj.(*CertificateSigningRequest)
	assert.Equal(t, "req", string(csr.Spec.Request))
	assert.True(t, csr.IsApproved())
	assert.True(t, csr.IsFinished())
	out, err := json.Marshal(csr)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
	typ, ok := s.ByResource(meta.GroupVersionResource{Group: GroupName, Version: Version, Resource: "certificatesigningrequests"})
	require.True(t, ok)
	assert.False(t, typ.Namespaced)
	assert.Equal(t, []string{"csr"}, typ.ShortNames)
}
