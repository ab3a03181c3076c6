package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// WidgetReconciler keeps, for every Widget, a ConfigMap named
// "<widget>-widget" in its namespace holding the widget's size, with the
// widget as its controlling owner, and reports in the widget's status
// whether the ConfigMap matches. It reads from the shared informers'
// caches and writes through the client. A ConfigMap of that name owned
// by something else is left alone and the widget reported not ready.
// Safe for concurrent use by the controller's workers.
type WidgetReconciler struct {
	client     *client.Client
	widgets    *informer.Informer[*Widget]
	configMaps *informer.Informer[*core.ConfigMap]
}

var _ controller.Reconciler = (*WidgetReconciler)(nil)

// NewWidgetController returns the widget controller on m: it reconciles
// a widget when the widget changes and when a ConfigMap it controls
// changes. Add it to m and run m. The client m was made with must know
// Widget (client.WithScheme). log may be nil (slog.Default()).
func NewWidgetController(m *controller.Manager, log *slog.Logger) (*controller.Controller, error) {
	widgets, err := controller.InformerFor[Widget](m, "")
	if err != nil {
		return nil, err
	}
	configMaps, err := controller.InformerFor[core.ConfigMap](m, "")
	if err != nil {
		return nil, err
	}
	r := &WidgetReconciler{client: m.Client(), widgets: widgets, configMaps: configMaps}
	c, err := controller.New("widget", r, controller.Config{Workers: 2, Logger: log})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, widgets)
	controller.WatchOwned(c, configMaps, controller.OwnerKind{Group: GroupVersion.Group, Kind: "Widget"})
	return c, nil
}

// ConfigMapName is the name of the ConfigMap kept for widget name.
func ConfigMapName(widget string) string { return widget + "-widget" }

// Reconcile implements controller.Reconciler. A widget that is gone
// needs nothing: the garbage collector deletes its ConfigMap through the
// ownerReference.
func (r *WidgetReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	w, err := r.widgets.Lister().Namespace(req.Namespace).Get(req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	if w.DeletionTimestamp != nil {
		return controller.Result{}, nil
	}
	status, err := r.syncConfigMap(ctx, w)
	if err == nil {
		err = r.updateStatus(ctx, w, status)
	}
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		// The cache was behind the server: try again (with backoff) once
		// it has caught up, without reporting a failure.
		return controller.Result{Requeue: true}, nil
	}
	return controller.Result{}, err
}

// syncConfigMap creates or corrects the widget's ConfigMap and returns
// the status the widget should have.
func (r *WidgetReconciler) syncConfigMap(ctx context.Context, w *Widget) (WidgetStatus, error) {
	want := desiredConfigMap(w)
	status := WidgetStatus{Ready: true, ConfigMap: want.Name, ObservedGeneration: w.Generation}
	cms := client.For[core.ConfigMap](r.client, w.Namespace)
	cur, err := r.configMaps.Lister().Namespace(w.Namespace).Get(want.Name)
	switch {
	case errors.Is(err, informer.ErrNotFound):
		if _, err := cms.Create(ctx, want); err != nil {
			return status, fmt.Errorf("create ConfigMap %s/%s: %w", w.Namespace, want.Name, err)
		}
		return status, nil
	case err != nil:
		return status, err
	}
	if ref := meta.ControllerOf(&cur.ObjectMeta); ref == nil || ref.UID != w.UID {
		status.Ready = false
		status.Message = fmt.Sprintf("ConfigMap %q exists and is not controlled by this widget", want.Name)
		return status, nil
	}
	if maps.Equal(cur.Data, want.Data) {
		return status, nil
	}
	next := meta.DeepCopy(cur)
	next.Data = want.Data
	if _, err := cms.Update(ctx, next); err != nil {
		return status, fmt.Errorf("update ConfigMap %s/%s: %w", w.Namespace, want.Name, err)
	}
	return status, nil
}

// desiredConfigMap is the ConfigMap w should have.
func desiredConfigMap(w *Widget) *core.ConfigMap {
	yes := true
	return &core.ConfigMap{
		ObjectMeta: meta.ObjectMeta{Name: ConfigMapName(w.Name), Namespace: w.Namespace,
			Labels: map[string]string{"example.orkit.io/widget": w.Name},
			OwnerReferences: []meta.OwnerReference{{APIVersion: GroupVersion.String(), Kind: "Widget",
				Name: w.Name, UID: w.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
		Data: map[string]string{"size": strconv.Itoa(int(w.Spec.Size))},
	}
}

// updateStatus writes status through the status subresource when it
// differs from w's. A conflict (the widget changed meanwhile) is
// returned; Reconcile requeues, and the next attempt reads the newer
// widget.
func (r *WidgetReconciler) updateStatus(ctx context.Context, w *Widget, status WidgetStatus) error {
	if w.Status == status {
		return nil
	}
	next := meta.DeepCopy(w)
	next.Status = status
	_, err := client.For[Widget](r.client, w.Namespace).UpdateStatus(ctx, next)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of widget %s/%s: %w", w.Namespace, w.Name, err)
	}
	return nil
}
