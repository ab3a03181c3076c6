package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// volumeInformers are the scheduler's informers of claims, volumes and
// StorageClasses, which the VolumeBinding plugin reads. They run with the
// scheduler's other informers and stop with it.
type volumeInformers struct {
	claims  *informer.Informer[*core.PersistentVolumeClaim]
	volumes *informer.Informer[*core.PersistentVolume]
	classes *informer.Informer[*storage.StorageClass]
}

func newVolumeInformers(c *client.Client, log *slog.Logger) *volumeInformers {
	return &volumeInformers{
		claims: informer.New[*core.PersistentVolumeClaim](informer.NewListerWatcher(client.For[core.PersistentVolumeClaim](c, ""), "", ""),
			informer.Config[*core.PersistentVolumeClaim]{Name: "persistentvolumeclaims", Logger: log}),
		volumes: informer.New[*core.PersistentVolume](informer.NewListerWatcher(client.For[core.PersistentVolume](c, ""), "", ""),
			informer.Config[*core.PersistentVolume]{Name: "persistentvolumes", Logger: log}),
		classes: informer.New[*storage.StorageClass](informer.NewListerWatcher(client.For[storage.StorageClass](c, ""), "", ""),
			informer.Config[*storage.StorageClass]{Name: "storageclasses", Logger: log}),
	}
}

// plugin returns a VolumeBinding plugin over the informers' listers.
func (v *volumeInformers) plugin(c *client.Client, timeout time.Duration) *plugins.VolumeBinding {
	return &plugins.VolumeBinding{Claims: v.claims.Lister(), Volumes: v.volumes.Lister(), Classes: v.classes.Lister(),
		Client: c, BindTimeout: timeout}
}

// run starts the informers through the scheduler's runInformer.
func (v *volumeInformers) run(runInformer func(string, func(context.Context) error)) {
	runInformer("persistentvolumeclaims", v.claims.Run)
	runInformer("persistentvolumes", v.volumes.Run)
	runInformer("storageclasses", v.classes.Run)
}

// addHandlers calls changed on every add, update and delete (a claim
// bound, a volume created, a class added may let parked pods fit) and
// returns the handlers' synced functions.
func (v *volumeInformers) addHandlers(changed func()) []func() bool {
	return []func() bool{
		v.claims.AddEventHandler(changeHandler[*core.PersistentVolumeClaim](changed)).HasSynced,
		v.volumes.AddEventHandler(changeHandler[*core.PersistentVolume](changed)).HasSynced,
		v.classes.AddEventHandler(changeHandler[*storage.StorageClass](changed)).HasSynced,
	}
}

func changeHandler[T any](changed func()) informer.HandlerFuncs[T] {
	return informer.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { changed() },
		UpdateFunc: func(T, T) { changed() },
		DeleteFunc: func(any) { changed() },
	}
}

// withVolumeBinding returns profiles with vb among the plugins of every
// profile that has no VolumeBinding plugin of its own.
func withVolumeBinding(profiles []framework.Profile, vb *plugins.VolumeBinding) []framework.Profile {
	out := append([]framework.Profile(nil), profiles...)
	for i := range out {
		if hasPlugin(out[i], plugins.NameVolumeBinding) {
			continue
		}
		out[i].Predicates = append(append([]framework.Predicate(nil), out[i].Predicates...), vb)
	}
	return out
}

func hasPlugin(p framework.Profile, name string) bool {
	for _, x := range p.Predicates {
		if x.Name() == name {
			return true
		}
	}
	for _, x := range p.Plugins {
		if x.Name() == name {
			return true
		}
	}
	return false
}
