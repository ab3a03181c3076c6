package scheduler

import (
	"context"
	"log/slog"

	"github.com/orkit/orkit/api/dra"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// draInformers are the scheduler's informers of DeviceClasses,
// ResourceSlices and ResourceClaims, which the DynamicResources plugin
// reads. They run with the scheduler's other informers and stop with it.
type draInformers struct {
	classes *informer.Informer[*dra.DeviceClass]
	slices  *informer.Informer[*dra.ResourceSlice]
	claims  *informer.Informer[*dra.ResourceClaim]
}

func newDRAInformers(c *client.Client, log *slog.Logger) *draInformers {
	return &draInformers{
		classes: informer.New[*dra.DeviceClass](informer.NewListerWatcher(client.For[dra.DeviceClass](c, ""), "", ""),
			informer.Config[*dra.DeviceClass]{Name: "deviceclasses", Logger: log}),
		slices: informer.New[*dra.ResourceSlice](informer.NewListerWatcher(client.For[dra.ResourceSlice](c, ""), "", ""),
			informer.Config[*dra.ResourceSlice]{Name: "resourceslices", Logger: log}),
		claims: informer.New[*dra.ResourceClaim](informer.NewListerWatcher(client.For[dra.ResourceClaim](c, ""), "", ""),
			informer.Config[*dra.ResourceClaim]{Name: "resourceclaims", Logger: log}),
	}
}

// plugin returns a DynamicResources plugin over the informers' listers.
func (d *draInformers) plugin(c *client.Client) *plugins.DynamicResources {
	return &plugins.DynamicResources{Classes: d.classes.Lister(), Slices: d.slices.Lister(), Claims: d.claims.Lister(), Client: c}
}

// run starts the informers through the scheduler's runInformer.
func (d *draInformers) run(runInformer func(string, func(context.Context) error)) {
	runInformer("deviceclasses", d.classes.Run)
	runInformer("resourceslices", d.slices.Run)
	runInformer("resourceclaims", d.claims.Run)
}

// addHandlers calls changed on every add, update and delete (a claim
// made or deallocated, a slice published, a class added may let parked
// pods fit) and returns the handlers' synced functions.
func (d *draInformers) addHandlers(changed func()) []func() bool {
	return []func() bool{
		d.classes.AddEventHandler(changeHandler[*dra.DeviceClass](changed)).HasSynced,
		d.slices.AddEventHandler(changeHandler[*dra.ResourceSlice](changed)).HasSynced,
		d.claims.AddEventHandler(changeHandler[*dra.ResourceClaim](changed)).HasSynced,
	}
}

// withDynamicResources returns profiles with dr among the plugins of
// every profile that has no DynamicResources plugin of its own.
func withDynamicResources(profiles []framework.Profile, dr *plugins.DynamicResources) []framework.Profile {
	out := append([]framework.Profile(nil), profiles...)
	for i := range out {
		if hasPlugin(out[i], plugins.NameDynamicResources) {
			continue
		}
		out[i].Predicates = append(append([]framework.Predicate(nil), out[i].Predicates...), dr)
	}
	return out
}
