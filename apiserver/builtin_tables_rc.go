package apiserver

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/node"
)

// The columns of ReplicationControllers, PodTemplates and RuntimeClasses, as
// kube-apiserver's printers define them, and the scale of a
// ReplicationController.
var (
	replicationControllerTable = &TableConvertor{
		Columns: []TableColumn{
			col("Desired", "integer", "Number of desired pods.", 0), col("Current", "integer", "Number of actual replicas.", 0),
			col("Ready", "integer", "The number of ready replicas.", 0),
			col("Containers", "string", "Names of each container in the template.", 1), col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "Label selector for pods.", 1),
		},
		Cells: func(obj meta.Object) []any {
			rc := obj.(*core.ReplicationController)
			var names, images string
			if rc.Spec.Template != nil {
				names, images = containersOf(&rc.Spec.Template.Spec)
			}
			return []any{int64(replicas(rc.Spec.Replicas)), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
				names, images, mapSelectorString(rc.Spec.Selector)}
		},
	}
	podTemplateTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			nameColumn,
			col("Containers", "string", "Names of each container in the template.", 0),
			col("Images", "string", "Images referenced by each container in the template.", 0),
			col("Pod Labels", "string", "The labels for the pod template.", 0),
		},
		Cells: func(obj meta.Object) []any {
			t := obj.(*core.PodTemplate)
			names, images := containersOf(&t.Template.Spec)
			return []any{t.Name, names, images, orNone(labels.Set(t.Template.Labels).String())}
		},
	}
	runtimeClassTable = &TableConvertor{
		Columns: []TableColumn{col("Handler", "string", "Handler is the CRI handler that runs the class's pods.", 0)},
		Cells:   func(obj meta.Object) []any { return []any{obj.(*node.RuntimeClass).Handler} },
	}
	replicationControllerScale = &ScaleAccessor{
		Get: func(obj meta.Object) (int32, int32, string) {
			rc := obj.(*core.ReplicationController)
			return replicas(rc.Spec.Replicas), rc.Status.Replicas, labels.SelectorFromSet(rc.Spec.Selector).String()
		},
		Set: func(obj meta.Object, n int32) { obj.(*core.ReplicationController).Spec.Replicas = &n },
	}
)

// mapSelectorString prints an equality selector ("app=web,tier=db"), or
// <none>.
func mapSelectorString(m map[string]string) string {
	return orNone(labels.SelectorFromSet(m).String())
}
