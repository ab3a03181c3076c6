package statefulset

import (
	"context"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// claimPods returns the set's pods by ordinal (controller.ClaimObjects),
// after adopting orphans that the selector matches and that carry one of
// the set's pod names, and releasing pods it controls that the selector
// no longer matches.
func (c *Controller) claimPods(ctx context.Context, set *apps.StatefulSet, sel labels.Selector) (map[int]*core.Pod, error) {
	pods, err := controller.ClaimObjects(ctx, c.client, controller.Claim[*core.Pod]{Owner: set, Ref: controllerRef(set), Selector: sel,
		Match: func(p *core.Pod) bool { _, named := ParseOrdinal(set, p.Name); return named },
		Recheck: func(ctx context.Context) (meta.Object, error) {
			return client.For[apps.StatefulSet](c.client, set.Namespace).Get(ctx, set.Name)
		}}, c.pods.Namespace(set.Namespace).List(nil))
	if err != nil {
		return nil, err
	}
	out := make(map[int]*core.Pod, len(pods))
	for _, p := range pods {
		ord, _ := ParseOrdinal(set, p.Name)
		out[ord] = p
	}
	return out, nil
}
