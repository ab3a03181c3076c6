package kubelet

import (
	"context"
	"fmt"
	"maps"

	"github.com/orkit/orkit/api/core"
)

// pluginProjected is the directory of projected volumes under a pod's
// volumes/, as the kubelet names it.
const pluginProjected = "kubernetes.io~projected"

// setUpProjected writes a projected volume (a tmpfs when the node can
// mount one, as the kubelet keeps tokens and secrets off disk): the files
// of every source, secrets, configMaps, the downward API,
// service-account tokens (fetched bound to the pod and refreshed after
// 80% of their life), ClusterTrustBundle trust anchors and pod
// certificates (a key and the chain a signer issued for it), replaced
// atomically on every sync.
func (k *Kubelet) setUpProjected(ctx context.Context, src *refSource, pod *core.Pod, v *core.Volume, prev mountedVolume) (mountedVolume, error) {
	dir := k.volumeDir(pod, pluginProjected, v.Name)
	files, err := k.projectedFiles(ctx, src, pod, v.Name, v.Projected)
	if err != nil {
		return prev, err
	}
	mv := mountedVolume{path: dir, readOnly: true}
	mv.tmpfs = k.memoryBacked(dir)
	return mv, writeAtomic(dir, files)
}

// projectedFiles gathers the files of every source of p.
func (k *Kubelet) projectedFiles(ctx context.Context, src *refSource, pod *core.Pod, volumeName string, p *core.ProjectedVolumeSource) (map[string]volumeFile, error) {
	out := map[string]volumeFile{}
	for i, s := range p.Sources {
		var (
			files map[string]volumeFile
			err   error
		)
		switch {
		case s.Secret != nil:
			files, err = secretFiles(ctx, src, &core.SecretVolumeSource{SecretName: s.Secret.Name, Items: s.Secret.Items,
				DefaultMode: p.DefaultMode, Optional: s.Secret.Optional})
		case s.ConfigMap != nil:
			files, err = configMapFiles(ctx, src, &core.ConfigMapVolumeSource{LocalObjectReference: s.ConfigMap.LocalObjectReference,
				Items: s.ConfigMap.Items, DefaultMode: p.DefaultMode, Optional: s.ConfigMap.Optional})
		case s.DownwardAPI != nil:
			files, err = k.downwardFiles(pod, &core.DownwardAPIVolumeSource{Items: s.DownwardAPI.Items, DefaultMode: p.DefaultMode})
		case s.ServiceAccountToken != nil:
			files, err = k.tokenFiles(ctx, pod, s.ServiceAccountToken, p.DefaultMode)
		case s.ClusterTrustBundle != nil:
			files, err = k.trustBundleFiles(ctx, s.ClusterTrustBundle, p.DefaultMode)
		case s.PodCertificate != nil:
			files, err = k.podCertificateFiles(ctx, pod, volumeName, i, s.PodCertificate, p.DefaultMode)
		default:
			err = fmt.Errorf("source %d has no known type", i)
		}
		if err != nil {
			return nil, err
		}
		maps.Copy(out, files)
	}
	return out, nil
}

// tokenFiles is the file of a serviceAccountToken source.
func (k *Kubelet) tokenFiles(ctx context.Context, pod *core.Pod, t *core.ServiceAccountTokenProjection, mode *int32) (map[string]volumeFile, error) {
	tok, err := k.tokens.token(ctx, pod, t)
	if err != nil {
		return nil, err
	}
	return map[string]volumeFile{t.Path: {data: []byte(tok), mode: fileMode(nil, mode, core.SecretVolumeDefaultMode)}}, nil
}
