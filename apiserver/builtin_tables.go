package apiserver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

func col(name, typ, desc string, priority int32) TableColumn {
	return TableColumn{Name: name, Type: typ, Description: desc, Priority: priority}
}

// The columns kubectl shows for the built-in kinds (as kube-apiserver's
// printers define them).
var (
	podTable = &TableConvertor{
		Columns: []TableColumn{
			col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", 0),
			col("Status", "string", "The aggregate status of the containers in this pod.", 0),
			col("Restarts", "string", "The number of times the containers in this pod have been restarted.", 0),
			// Age goes here (before the first wide column).
			col("IP", "string", "IP address allocated to the pod.", 1),
			col("Node", "string", "Name of the node the pod is assigned to.", 1),
			col("Nominated Node", "string", "Name of the node the pod is nominated to.", 1),
			col("Readiness Gates", "string", "The readiness gates of the pod.", 1),
		},
		Cells: func(obj meta.Object) []any {
			pod := obj.(*core.Pod)
			ready, restarts := 0, int32(0)
			for _, cs := range pod.Status.ContainerStatuses {
				if cs.Ready {
					ready++
				}
				restarts += cs.RestartCount
			}
			return []any{
				fmt.Sprintf("%d/%d", ready, len(pod.Spec.Containers)), podStatusReason(pod), fmt.Sprint(restarts),
				orNone(pod.Status.PodIP), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), orNone(""),
			}
		},
	}
	nodeTable = &TableConvertor{
		AgeBefore: "Version",
		Columns: []TableColumn{
			col("Status", "string", "The status of the node", 0), col("Roles", "string", "The roles of the node", 0),
			col("Version", "string", "Kubelet Version reported by the node.", 0),
			col("Internal-IP", "string", "List of internal IPs.", 1), col("External-IP", "string", "List of external IPs.", 1),
			col("OS-Image", "string", "OS image reported by the node.", 1), col("Kernel-Version", "string", "Kernel version reported by the node.", 1),
			col("Container-Runtime", "string", "Container runtime and version.", 1),
		},
		Cells: func(obj meta.Object) []any {
			n := obj.(*core.Node)
			status := "Unknown"
			for _, c := range n.Status.Conditions {
				if c.Type == core.NodeReady {
					status = map[meta.ConditionStatus]string{meta.ConditionTrue: "Ready", meta.ConditionFalse: "NotReady"}[c.Status]
					if status == "" {
						status = "NotReady"
					}
				}
			}
			if n.Spec.Unschedulable {
				status += ",SchedulingDisabled"
			}
			roles := []string{}
			for k := range n.Labels {
				if r, ok := strings.CutPrefix(k, "node-role.kubernetes.io/"); ok {
					roles = append(roles, r)
				}
			}
			sort.Strings(roles)
			internal, external := "<none>", "<none>"
			for _, a := range n.Status.Addresses {
				switch a.Type {
				case "InternalIP":
					internal = a.Address
				case "ExternalIP":
					external = a.Address
				}
			}
			return []any{status, orNone(strings.Join(roles, ",")), n.Status.NodeInfo.KubeletVersion, internal, external,
				orUnknown(n.Status.NodeInfo.OSImage), orUnknown(n.Status.NodeInfo.KernelVersion), orUnknown(n.Status.NodeInfo.ContainerRuntimeVersion)}
		},
	}
	namespaceTable = &TableConvertor{
		Columns: []TableColumn{col("Status", "string", "The status of the namespace", 0)},
		Cells:   func(obj meta.Object) []any { return []any{string(obj.(*core.Namespace).Status.Phase)} },
	}
	serviceTable = &TableConvertor{
		Columns: []TableColumn{
			col("Type", "string", "The type of the service.", 0), col("Cluster-IP", "string", "The cluster IP of the service.", 0),
			col("External-IP", "string", "The external IPs of the service.", 0), col("Port(s)", "string", "The ports of the service.", 0),
			col("Selector", "string", "The selector of the service.", 1),
		},
		Cells: func(obj meta.Object) []any {
			svc := obj.(*core.Service)
			var ports []string
			for _, p := range svc.Spec.Ports {
				s := fmt.Sprintf("%d/%s", p.Port, p.Protocol)
				if p.NodePort != 0 {
					s = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
				}
				ports = append(ports, s)
			}
			ext := strings.Join(svc.Spec.ExternalIPs, ",")
			for _, ing := range svc.Status.LoadBalancer.Ingress {
				ext = strings.Trim(ext+","+ing.IP, ",")
			}
			if ext == "" && svc.Spec.Type == core.ServiceTypeLoadBalancer {
				ext = "<pending>"
			}
			return []any{string(svc.Spec.Type), orNone(svc.Spec.ClusterIP), orNone(ext), orNone(strings.Join(ports, ",")),
				orNone(labels.SelectorFromSet(svc.Spec.Selector).String())}
		},
	}
	configMapTable = &TableConvertor{
		Columns: []TableColumn{col("Data", "integer", "Number of data entries.", 0)},
		Cells: func(obj meta.Object) []any {
			cm := obj.(*core.ConfigMap)
			return []any{int64(len(cm.Data) + len(cm.BinaryData))}
		},
	}
	secretTable = &TableConvertor{
		Columns: []TableColumn{col("Type", "string", "The type of the secret", 0), col("Data", "integer", "Number of data entries.", 0)},
		Cells: func(obj meta.Object) []any {
			s := obj.(*core.Secret)
			return []any{string(s.Type), int64(len(s.Data))}
		},
	}
	endpointsTable = &TableConvertor{
		Columns: []TableColumn{col("Endpoints", "string", "Endpoints of the service.", 0)},
		Cells: func(obj meta.Object) []any {
			var eps []string
			for _, ss := range obj.(*core.Endpoints).Subsets {
				for _, a := range ss.Addresses {
					for _, p := range ss.Ports {
						eps = append(eps, fmt.Sprintf("%s:%d", a.IP, p.Port))
					}
					if len(ss.Ports) == 0 {
						eps = append(eps, a.IP)
					}
				}
			}
			if len(eps) > 3 {
				eps = append(eps[:3], fmt.Sprintf("+ %d more...", len(eps)-3))
			}
			return []any{orNone(strings.Join(eps, ","))}
		},
	}
	deploymentTable = &TableConvertor{
		Columns: []TableColumn{
			col("Ready", "string", "Number of the pod with ready state", 0), col("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0),
			col("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0),
			col("Containers", "string", "Names of each container in the template.", 1), col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "Label selector for pods.", 1),
		},
		Cells: func(obj meta.Object) []any {
			d := obj.(*apps.Deployment)
			names, images := containersOf(&d.Spec.Template.Spec)
			return []any{fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)), int64(d.Status.UpdatedReplicas),
				int64(d.Status.AvailableReplicas), names, images, selectorString(d.Spec.Selector)}
		},
	}
	replicaSetTable = &TableConvertor{
		Columns: []TableColumn{
			col("Desired", "integer", "Number of desired pods.", 0), col("Current", "integer", "Number of actual replicas.", 0),
			col("Ready", "integer", "The number of ready replicas.", 0),
			col("Containers", "string", "Names of each container in the template.", 1), col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "Label selector for pods.", 1),
		},
		Cells: func(obj meta.Object) []any {
			rs := obj.(*apps.ReplicaSet)
			names, images := containersOf(&rs.Spec.Template.Spec)
			return []any{int64(replicas(rs.Spec.Replicas)), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas), names, images, selectorString(rs.Spec.Selector)}
		},
	}
	statefulSetTable = &TableConvertor{
		Columns: []TableColumn{
			col("Ready", "string", "Number of the pod with ready state", 0),
			col("Containers", "string", "Names of each container in the template.", 1), col("Images", "string", "Images referenced by each container in the template.", 1),
		},
		Cells: func(obj meta.Object) []any {
			s := obj.(*apps.StatefulSet)
			names, images := containersOf(&s.Spec.Template.Spec)
			return []any{fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, replicas(s.Spec.Replicas)), names, images}
		},
	}
	daemonSetTable = &TableConvertor{
		Columns: []TableColumn{
			col("Desired", "integer", "The total number of nodes that should be running the daemon pod.", 0),
			col("Current", "integer", "The number of nodes running at least one daemon pod and are supposed to.", 0),
			col("Ready", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.", 0),
			col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod.", 0),
			col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.", 0),
			col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node.", 0),
			col("Containers", "string", "Names of each container in the template.", 1), col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "Label selector for pods.", 1),
		},
		Cells: func(obj meta.Object) []any {
			d := obj.(*apps.DaemonSet)
			names, images := containersOf(&d.Spec.Template.Spec)
			return []any{int64(d.Status.DesiredNumberScheduled), int64(d.Status.CurrentNumberScheduled), int64(d.Status.NumberReady),
				int64(d.Status.UpdatedNumberScheduled), int64(d.Status.NumberAvailable),
				orNone(labels.SelectorFromSet(d.Spec.Template.Spec.NodeSelector).String()), names, images, selectorString(d.Spec.Selector)}
		},
	}
)

// podStatusReason is the STATUS column of `kubectl get pods`.
func podStatusReason(pod *core.Pod) string {
	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	for i := len(pod.Status.InitContainerStatuses) - 1; i >= 0; i-- {
		cs := pod.Status.InitContainerStatuses[i]
		switch {
		case cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0:
			continue
		case cs.State.Terminated != nil:
			reason = "Init:" + orDefault(cs.State.Terminated.Reason, "Error")
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + cs.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		return reason
	}
	for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
		cs := pod.Status.ContainerStatuses[i]
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			reason = cs.State.Waiting.Reason
		case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
			reason = cs.State.Terminated.Reason
		}
	}
	if pod.DeletionTimestamp != nil {
		reason = "Terminating"
	}
	if reason == "" {
		reason = "Pending"
	}
	return reason
}

func containersOf(spec *core.PodSpec) (string, string) {
	var names, images []string
	for _, c := range spec.Containers {
		names, images = append(names, c.Name), append(images, c.Image)
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

func selectorString(ls *meta.LabelSelector) string {
	sel, err := labels.SelectorFromLabelSelector(ls)
	if err != nil || sel.Empty() {
		return "<none>"
	}
	return sel.String()
}

func orNone(s string) string { return orDefault(s, "<none>") }

func orUnknown(s string) string { return orDefault(s, "<unknown>") }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Scale accessors of the apps kinds.
var (
	deploymentScale = &ScaleAccessor{
		Get: func(obj meta.Object) (int32, int32, string) {
			d := obj.(*apps.Deployment)
			return replicas(d.Spec.Replicas), d.Status.Replicas, selectorString(d.Spec.Selector)
		},
		Set: func(obj meta.Object, n int32) { obj.(*apps.Deployment).Spec.Replicas = &n },
	}
	replicaSetScale = &ScaleAccessor{
		Get: func(obj meta.Object) (int32, int32, string) {
			rs := obj.(*apps.ReplicaSet)
			return replicas(rs.Spec.Replicas), rs.Status.Replicas, selectorString(rs.Spec.Selector)
		},
		Set: func(obj meta.Object, n int32) { obj.(*apps.ReplicaSet).Spec.Replicas = &n },
	}
	statefulSetScale = &ScaleAccessor{
		Get: func(obj meta.Object) (int32, int32, string) {
			s := obj.(*apps.StatefulSet)
			return replicas(s.Spec.Replicas), s.Status.Replicas, selectorString(s.Spec.Selector)
		},
		Set: func(obj meta.Object, n int32) { obj.(*apps.StatefulSet).Spec.Replicas = &n },
	}
)
