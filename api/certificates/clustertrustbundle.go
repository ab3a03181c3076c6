package certificates

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"

	"github.com/orkit/orkit/api/meta"
)

// MaxTrustBundleSize is the largest spec.trustBundle accepted (1 MiB), as
// in Kubernetes.
const MaxTrustBundleSize = 1 << 20

// ClusterTrustBundle is a cluster-scoped set of X.509 trust anchors (CA
// certificates), optionally tied to a signer: a bundle with
// spec.signerName is named "<signer with '/' as ':'>:<name>" and its
// signer name never changes. Kubelets project bundles into pods
// (clusterTrustBundle projected volume sources). It has no status.
type ClusterTrustBundle struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ClusterTrustBundleSpec `json:"spec"`
}

// ClusterTrustBundleList is a list of ClusterTrustBundles.
type ClusterTrustBundleList = meta.List[ClusterTrustBundle]

// ClusterTrustBundleSpec is the signer and the trust anchors.
type ClusterTrustBundleSpec struct {
	// SignerName ties the bundle to a signer ("example.com/signer");
	// empty for a bundle of no signer. Immutable.
	SignerName string `json:"signerName,omitempty"`
	// TrustBundle is one or more PEM CERTIFICATE blocks, each a CA
	// certificate, without headers or duplicates; text between blocks
	// is ignored.
	TrustBundle string `json:"trustBundle"`
}

// ParseTrustBundle reads a trust bundle as validation does: every PEM
// block must be a CERTIFICATE without headers whose DER parses as an
// X.509 CA certificate with valid basic constraints; at least one and no
// duplicates. It returns the DER of each anchor in order, or the
// problems found (one message per bad block; duplicates and emptiness
// are reported only when every block is well formed). Input over
// MaxTrustBundleSize is refused without parsing.
func ParseTrustBundle(bundle string) ([][]byte, []string) {
	if len(bundle) > MaxTrustBundleSize {
		return nil, []string{fmt.Sprintf("must have at most %d bytes", MaxTrustBundleSize)}
	}
	var (
		anchors [][]byte
		errs    []string
		seen    = map[string][]int{}
		order   []string
	)
	rest := []byte(bundle)
	for i := 0; ; i++ {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if msg := checkAnchorBlock(b); msg != "" {
			errs = append(errs, fmt.Sprintf("entry %d %s", i, msg))
			continue
		}
		if _, dup := seen[string(b.Bytes)]; !dup {
			order = append(order, string(b.Bytes))
		}
		seen[string(b.Bytes)] = append(seen[string(b.Bytes)], i)
		anchors = append(anchors, b.Bytes)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(anchors) == 0 {
		return nil, []string{"at least one trust anchor must be provided"}
	}
	for _, der := range order {
		if idx := seen[der]; len(idx) > 1 {
			errs = append(errs, fmt.Sprintf("duplicate trust anchor (indices %v)", idx))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return anchors, nil
}

// checkAnchorBlock says what is wrong with one block, "" if nothing.
func checkAnchorBlock(b *pem.Block) string {
	if b.Type != "CERTIFICATE" {
		return "has bad block type: " + b.Type
	}
	if len(b.Headers) != 0 {
		return "has PEM block headers"
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	switch {
	case err != nil:
		return "does not parse as X.509"
	case !cert.IsCA:
		return "does not have the CA bit set"
	case !cert.BasicConstraintsValid:
		return "has invalid basic constraints"
	}
	return ""
}

// TrustAnchorsPEM joins the CERTIFICATE blocks of bundles into one PEM
// text, each distinct certificate once, headers and text between blocks
// dropped, in a stable (sorted by DER) order: what the kubelet writes
// for a clusterTrustBundle projected volume source. Blocks of other types
// are skipped (validation refuses them anyway).
func TrustAnchorsPEM(bundles ...string) []byte {
	set := map[string]bool{}
	for _, bundle := range bundles {
		rest := []byte(bundle)
		for {
			var b *pem.Block
			if b, rest = pem.Decode(rest); b == nil {
				break
			}
			if b.Type == "CERTIFICATE" {
				set[string(b.Bytes)] = true
			}
		}
	}
	ders := make([]string, 0, len(set))
	for der := range set {
		ders = append(ders, der)
	}
	slices.Sort(ders)
	var out []byte
	for _, der := range ders {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte(der)})...)
	}
	return out
}
