package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// Image size bounds of ImageLocality: below the minimum an image is not
// worth preferring a node for; the maximum per container caps the score.
const (
	imageMinThreshold          int64 = 23 * 1024 * 1024
	imageMaxContainerThreshold int64 = 1000 * 1024 * 1024
)

// ImageLocality prefers nodes that already have the pod's images: the
// sum over containers of image size × the fraction of nodes having the
// image (so an image everywhere does not dominate), scaled between 23 MiB
// and 1000 MiB per container.
type ImageLocality struct{}

var _ framework.Priority = ImageLocality{}

// Name implements framework.Plugin.
func (ImageLocality) Name() string { return NameImageLocality }

// Score implements framework.Priority.
func (ImageLocality) Score(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	if len(ni.ImageSizes) == 0 {
		return 0, nil
	}
	snap := state.Snapshot()
	total := 1
	count := func(string) int { return 1 }
	if snap != nil {
		total = max(1, snap.NumNodes())
		count = snap.ImageNodeCount
	}
	return ImageLocalityScore(pod, ni, count, total), nil
}

// ImageLocalityScore is ImageLocality's decision; count(image) is the
// number of nodes with the image out of total.
func ImageLocalityScore(pod *core.Pod, ni *framework.NodeInfo, count func(string) int, total int) int64 {
	var sum int64
	for i := range pod.Spec.Containers {
		name := framework.NormalizeImage(pod.Spec.Containers[i].Image)
		if size, ok := ni.ImageSizes[name]; ok {
			spread := float64(count(name)) / float64(max(total, 1))
			sum += int64(float64(size) * min(spread, 1))
		}
	}
	maxThreshold := imageMaxContainerThreshold * int64(max(1, len(pod.Spec.Containers)))
	sum = min(max(sum, imageMinThreshold), maxThreshold)
	return framework.MaxNodeScore * (sum - imageMinThreshold) / (maxThreshold - imageMinThreshold)
}
