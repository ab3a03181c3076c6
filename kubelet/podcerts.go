package kubelet

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sync"
	"time"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// podCertKey names one podCertificate source of one pod.
type podCertKey struct {
	podUID, volume string
	source         int
}

// podCredential is the state of one source: the key whose request is
// pending (pendingKey, pendingName) and the last issued key and chain
// (keyPEM, chainPEM) with the time to ask for the next one.
type podCredential struct {
	pendingKey, pendingName string
	keyPEM, chainPEM        []byte
	refreshAt               time.Time
}

// podCertManager obtains the certificates of podCertificate projected
// sources, as the kubelet's pod certificate manager does: it generates a
// key of the source's type, creates a PodCertificateRequest (named
// req-<random>, owned by the pod) for the pod, its service account and
// this node, and on later syncs looks for the signer's answer; issued
// credentials are kept, and a new request is made once beginRefreshAt
// has passed (the old credentials stay in use until it is answered).
// Safe for concurrent use; owned by the Kubelet, state dropped per pod by
// forget.
type podCertManager struct {
	c    *client.Client
	node string
	now  func() time.Time

	mu      sync.Mutex
	nodeUID string
	creds   map[podCertKey]*podCredential
}

func newPodCertManager(c *client.Client, node string) *podCertManager {
	return &podCertManager{c: c, node: node, now: time.Now, creds: map[podCertKey]*podCredential{}}
}

// podCertificateFiles writes the key and chain of a podCertificate
// source: key then chain in credentialBundlePath, each alone in keyPath
// and certificateChainPath. Until the first certificate is issued it
// fails, so the pod waits (and the sync is retried).
func (k *Kubelet) podCertificateFiles(ctx context.Context, pod *core.Pod, volume string, index int, src *core.PodCertificateProjection, mode *int32) (map[string]volumeFile, error) {
	keyPEM, chainPEM, err := k.podCerts.credentials(ctx, pod, podCertKey{podUID: string(pod.UID), volume: volume, source: index}, src)
	if err != nil {
		return nil, err
	}
	m := fileMode(nil, mode, core.SecretVolumeDefaultMode)
	files := map[string]volumeFile{}
	if src.CredentialBundlePath != "" {
		files[src.CredentialBundlePath] = volumeFile{data: append(append([]byte(nil), keyPEM...), chainPEM...), mode: m}
	}
	if src.KeyPath != "" {
		files[src.KeyPath] = volumeFile{data: keyPEM, mode: m}
	}
	if src.CertificateChainPath != "" {
		files[src.CertificateChainPath] = volumeFile{data: chainPEM, mode: m}
	}
	return files, nil
}

// credentials returns the issued key and chain of key, moving its
// request along.
func (m *podCertManager) credentials(ctx context.Context, pod *core.Pod, key podCertKey, src *core.PodCertificateProjection) ([]byte, []byte, error) {
	m.mu.Lock()
	cred := m.creds[key]
	if cred == nil {
		cred = &podCredential{}
		m.creds[key] = cred
	}
	st := *cred
	m.mu.Unlock()
	if st.pendingName == "" && (st.chainPEM == nil || !m.now().Before(st.refreshAt)) {
		keyPEM, name, err := m.request(ctx, pod, src)
		if err != nil {
			return m.fallback(st, fmt.Errorf("create PodCertificateRequest: %w", err))
		}
		st.pendingKey, st.pendingName = keyPEM, name
	}
	if st.pendingName != "" {
		if err := m.collect(ctx, pod.Namespace, &st); err != nil {
			m.store(key, st)
			return m.fallback(st, err)
		}
	}
	m.store(key, st)
	return st.keyPEM, st.chainPEM, nil
}

func (m *podCertManager) store(key podCertKey, st podCredential) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.creds[key]; c != nil {
		*c = st
	}
}

// fallback keeps serving issued credentials while a refresh is pending.
func (m *podCertManager) fallback(st podCredential, err error) ([]byte, []byte, error) {
	if st.chainPEM != nil {
		return st.keyPEM, st.chainPEM, nil
	}
	return nil, nil, err
}

// collect looks for the signer's answer to st's pending request.
func (m *podCertManager) collect(ctx context.Context, ns string, st *podCredential) error {
	reqs := client.For[certificates.PodCertificateRequest](m.c, ns)
	list, err := reqs.List(ctx, client.ListOptions{FieldSelector: "spec.nodeName=" + m.node + ",metadata.name=" + st.pendingName})
	if err != nil {
		return fmt.Errorf("get PodCertificateRequest %s/%s: %w", ns, st.pendingName, err)
	}
	if len(list.Items) == 0 { // deleted: ask again on the next sync
		name := st.pendingName
		st.pendingKey, st.pendingName = "", ""
		return fmt.Errorf("%w: PodCertificateRequest %s/%s disappeared", ErrVolume, ns, name)
	}
	r := &list.Items[0]
	switch {
	case r.HasCondition(certificates.PodCertificateRequestConditionTypeIssued):
		st.keyPEM, st.chainPEM = []byte(st.pendingKey), cleanChain(r.Status.CertificateChain)
		st.refreshAt = m.now().Add(time.Hour)
		if r.Status.BeginRefreshAt != nil {
			st.refreshAt = r.Status.BeginRefreshAt.Time
		}
		st.pendingKey, st.pendingName = "", ""
		return nil
	case r.HasCondition(certificates.PodCertificateRequestConditionTypeDenied), r.HasCondition(certificates.PodCertificateRequestConditionTypeFailed):
		return fmt.Errorf("%w: PodCertificateRequest %s/%s was denied or failed", ErrVolume, ns, r.Name)
	}
	return fmt.Errorf("%w: waiting for PodCertificateRequest %s/%s to be issued", ErrVolume, ns, r.Name)
}

// request generates a key and creates its PodCertificateRequest,
// returning the PEM key and the request's name.
func (m *podCertManager) request(ctx context.Context, pod *core.Pod, src *core.PodCertificateProjection) (string, string, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	account, err := client.For[core.ServiceAccount](m.c, pod.Namespace).Get(ctx, sa)
	if err != nil {
		return "", "", fmt.Errorf("get service account: %w", err)
	}
	nodeUID, err := m.ownUID(ctx)
	if err != nil {
		return "", "", err
	}
	priv, stub, err := newPodKey(src.KeyType)
	if err != nil {
		return "", "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", "", fmt.Errorf("marshal key: %w", err)
	}
	r := &certificates.PodCertificateRequest{
		ObjectMeta: meta.ObjectMeta{Namespace: pod.Namespace, GenerateName: "req-",
			OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}}},
		Spec: certificates.PodCertificateRequestSpec{SignerName: src.SignerName, PodName: pod.Name, PodUID: string(pod.UID),
			ServiceAccountName: sa, ServiceAccountUID: string(account.UID), NodeName: m.node, NodeUID: nodeUID,
			MaxExpirationSeconds: src.MaxExpirationSeconds, StubPKCS10Request: stub, UnverifiedUserAnnotations: src.UserAnnotations},
	}
	out, err := client.For[certificates.PodCertificateRequest](m.c, pod.Namespace).Create(ctx, r)
	if err != nil {
		return "", "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), out.Name, nil
}

// ownUID is this node's UID (read once).
func (m *podCertManager) ownUID(ctx context.Context) (string, error) {
	m.mu.Lock()
	uid := m.nodeUID
	m.mu.Unlock()
	if uid != "" {
		return uid, nil
	}
	n, err := client.For[core.Node](m.c, "").Get(ctx, m.node)
	if err != nil {
		return "", fmt.Errorf("get own node: %w", err)
	}
	m.mu.Lock()
	m.nodeUID = string(n.UID)
	m.mu.Unlock()
	return string(n.UID), nil
}

// forget drops the credentials of a pod that is gone.
func (m *podCertManager) forget(podUID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.creds {
		if k.podUID == podUID {
			delete(m.creds, k)
		}
	}
}

// newPodKey generates a key of keyType and an empty PKCS#10 request
// signed by it (the proof of possession).
func newPodKey(keyType string) (crypto.Signer, []byte, error) {
	var (
		priv crypto.Signer
		err  error
	)
	switch keyType {
	case "RSA3072", "RSA4096":
		bits := 3072
		if keyType == "RSA4096" {
			bits = 4096
		}
		priv, err = rsa.GenerateKey(rand.Reader, bits)
	case "ECDSAP256":
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ECDSAP384":
		priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ECDSAP521":
		priv, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "ED25519":
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		return nil, nil, fmt.Errorf("%w: unknown key type %q", ErrVolume, keyType)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("generate %s key: %w", keyType, err)
	}
	stub, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, priv)
	if err != nil {
		return nil, nil, fmt.Errorf("stub PKCS#10 request: %w", err)
	}
	return priv, stub, nil
}

// cleanChain keeps only the CERTIFICATE blocks of chain, without headers
// or text between them.
func cleanChain(chain string) []byte {
	var out bytes.Buffer
	rest := []byte(chain)
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return out.Bytes()
		}
		_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: b.Bytes})
	}
}
