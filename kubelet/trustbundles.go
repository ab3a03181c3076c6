package kubelet

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/client"
)

// trustBundleFiles is the file of a clusterTrustBundle projected source:
// the deduplicated trust anchors of the named ClusterTrustBundle, or of
// every bundle of the signer whose labels match the selector (a nil
// selector matches none), read from the API server on every sync so that
// changes reach the pod, as the kubelet's ClusterTrustBundle manager
// does. Finding nothing is an error unless the source is optional, when
// the file is empty.
func (k *Kubelet) trustBundleFiles(ctx context.Context, src *core.ClusterTrustBundleProjection, mode *int32) (map[string]volumeFile, error) {
	optional := src.Optional != nil && *src.Optional
	bundles := client.For[certificates.ClusterTrustBundle](k.cfg.Client, "")
	var texts []string
	switch {
	case src.Name != nil:
		b, err := bundles.Get(ctx, *src.Name)
		switch {
		case apierrors.IsNotFound(err) && optional:
		case err != nil:
			return nil, fmt.Errorf("get ClusterTrustBundle %q: %w", *src.Name, err)
		default:
			texts = append(texts, b.Spec.TrustBundle)
		}
	case src.SignerName != nil:
		sel, err := labels.SelectorFromLabelSelector(src.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("ClusterTrustBundle label selector: %w", err)
		}
		if src.LabelSelector != nil { // nil matches nothing: no need to ask
			list, err := bundles.List(ctx, client.ListOptions{FieldSelector: "spec.signerName=" + *src.SignerName, LabelSelector: sel.String()})
			if err != nil {
				return nil, fmt.Errorf("list ClusterTrustBundles of signer %q: %w", *src.SignerName, err)
			}
			for i := range list.Items {
				texts = append(texts, list.Items[i].Spec.TrustBundle)
			}
		}
		if len(texts) == 0 && !optional {
			return nil, fmt.Errorf("%w: combination of signerName and labelSelector matched zero ClusterTrustBundles", ErrVolume)
		}
	default:
		return nil, fmt.Errorf("%w: ClusterTrustBundle projection requires either name or signerName to be set", ErrVolume)
	}
	return map[string]volumeFile{src.Path: {data: certificates.TrustAnchorsPEM(texts...), mode: fileMode(nil, mode, core.SecretVolumeDefaultMode)}}, nil
}
