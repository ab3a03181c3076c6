package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gorilla/websocket"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
)

// podStrategy adds graceful deletion to the default strategy: a pod bound
// to a node and not yet terminated gets a deletionTimestamp and stays until
// its node agent confirms with grace period 0.
type podStrategy struct {
	*DefaultStrategy
}

var (
	_ GracefulStrategy = (*podStrategy)(nil)
	_ DeleteStrategy   = (*podStrategy)(nil)
)

// PrepareForCreate starts a new pod's status as kube-apiserver does: phase
// Pending and its QoS class, whatever the client sent.
func (s *podStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	s.DefaultStrategy.PrepareForCreate(ctx, obj)
	if pod, ok := obj.(*core.Pod); ok {
		pod.Status = core.PodStatus{Phase: core.PodPending, QOSClass: core.ComputePodQOS(pod)}
	}
}

// BeginDelete does nothing: the grace period is set by GracePeriod.
func (s *podStrategy) BeginDelete(meta.Object) {}

// Pending keeps a deleted pod until its grace period is set to 0 (by the
// node agent, once the containers are gone).
func (s *podStrategy) Pending(obj meta.Object) bool {
	g := obj.GetObjectMeta().DeletionGracePeriodSeconds
	return g != nil && *g > 0
}

// GracePeriod returns the delete options' grace period, else the pod's
// terminationGracePeriodSeconds; unbound and terminated pods go at once.
func (s *podStrategy) GracePeriod(obj meta.Object, opts *meta.DeleteOptions) (int64, bool) {
	pod := obj.(*core.Pod)
	grace := int64(30)
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if opts.GracePeriodSeconds != nil {
		grace = *opts.GracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == core.PodSucceeded || pod.Status.Phase == core.PodFailed {
		return 0, false
	}
	return grace, true
}

// podSelectable is what field selectors read of a pod, with the pod's
// JSON names, so podFields and podFieldsJSON cannot disagree.
type podSelectable struct {
	Spec struct {
		NodeName           string `json:"nodeName"`
		RestartPolicy      string `json:"restartPolicy"`
		SchedulerName      string `json:"schedulerName"`
		ServiceAccountName string `json:"serviceAccountName"`
		HostNetwork        bool   `json:"hostNetwork"`
	} `json:"spec"`
	Status struct {
		Phase             string `json:"phase"`
		PodIP             string `json:"podIP"`
		NominatedNodeName string `json:"nominatedNodeName"`
	} `json:"status"`
}

func (p *podSelectable) set() fields.Set {
	return fields.Set{
		"spec.nodeName":           p.Spec.NodeName,
		"spec.restartPolicy":      p.Spec.RestartPolicy,
		"spec.schedulerName":      p.Spec.SchedulerName,
		"spec.serviceAccountName": p.Spec.ServiceAccountName,
		"spec.hostNetwork":        strconv.FormatBool(p.Spec.HostNetwork),
		"status.phase":            p.Status.Phase,
		"status.podIP":            p.Status.PodIP,
		// Accepted but never set, as kube-apiserver does: a selector on
		// it matches only "".
		"status.podIPs":            "",
		"status.nominatedNodeName": p.Status.NominatedNodeName,
	}
}

func podFields(obj meta.Object) fields.Set {
	pod := obj.(*core.Pod)
	var p podSelectable
	p.Spec.NodeName, p.Spec.RestartPolicy = pod.Spec.NodeName, string(pod.Spec.RestartPolicy)
	p.Spec.SchedulerName, p.Spec.ServiceAccountName = pod.Spec.SchedulerName, pod.Spec.ServiceAccountName
	p.Spec.HostNetwork = pod.Spec.HostNetwork
	p.Status.Phase, p.Status.PodIP, p.Status.NominatedNodeName = string(pod.Status.Phase), pod.Status.PodIP, pod.Status.NominatedNodeName
	return p.set()
}

// podFieldsJSON is podFields read from a pod's stored JSON, with its
// metadata, in one partial decode (about half the work of decoding the
// pod).
func podFieldsJSON(stored []byte) (*meta.ObjectMeta, fields.Set, error) {
	var v struct {
		Metadata meta.ObjectMeta `json:"metadata"`
		podSelectable
	}
	if err := json.Unmarshal(stored, &v); err != nil {
		return nil, nil, err
	}
	return &v.Metadata, v.set(), nil
}

func nodeFields(obj meta.Object) fields.Set {
	return fields.Set{"spec.unschedulable": strconv.FormatBool(obj.(*core.Node).Spec.Unschedulable)}
}

func namespaceFields(obj meta.Object) fields.Set {
	return fields.Set{"status.phase": string(obj.(*core.Namespace).Status.Phase)}
}

func secretFields(obj meta.Object) fields.Set {
	return fields.Set{"type": string(obj.(*core.Secret).Type)}
}

// eventFields are kube-apiserver's selectable fields of an Event; source
// is the reporting component, or the reporting controller when none.
func eventFields(obj meta.Object) fields.Set {
	e := obj.(*core.Event)
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	return fields.Set{
		"involvedObject.kind": e.InvolvedObject.Kind, "involvedObject.namespace": e.InvolvedObject.Namespace,
		"involvedObject.name": e.InvolvedObject.Name, "involvedObject.uid": string(e.InvolvedObject.UID),
		"involvedObject.apiVersion": e.InvolvedObject.APIVersion, "involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath": e.InvolvedObject.FieldPath,
		"reason":                   e.Reason, "type": e.Type, "source": source, "reportingComponent": e.ReportingController,
	}
}

// serveBinding handles POST pods/<name>/binding.
func (s *Server) serveBinding(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	if req.Info.Verb != "create" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return
	}
	body, _, err := readBody(r, "application/json", "application/yaml")
	if err != nil {
		writeError(w, err)
		return
	}
	b := &core.Binding{}
	if err := decodeStrict(body, b, false); err != nil {
		writeError(w, err)
		return
	}
	if b.Name == "" {
		b.Name = req.Info.Name
	}
	if b.Name != req.Info.Name {
		writeError(w, apierrors.NewBadRequest("the name of the binding does not match the pod"))
		return
	}
	b.Namespace = req.Info.Namespace
	if _, err := s.bind(ctx, req, b); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess, Code: http.StatusCreated})
}

// createBinding handles POST namespaces/<ns>/bindings.
func (s *Server) createBinding(ctx context.Context, req *Request, obj meta.Object) (meta.Object, error) {
	return s.bind(ctx, req, obj.(*core.Binding))
}

// bind sets the pod's nodeName and its PodScheduled condition; a pod
// already bound gets 409.
func (s *Server) bind(ctx context.Context, req *Request, b *core.Binding) (meta.Object, error) {
	pods, ok := s.lookup(coreGVR("pods"))
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("pods are not served"))
	}
	if b.Target.Name == "" || (b.Target.Kind != "" && b.Target.Kind != "Node") {
		return nil, apierrors.NewInvalid(meta.GroupVersionKind{Version: "v1", Kind: "Binding"}, b.Name, nil)
	}
	_, err := pods.storage.GuaranteedUpdate(ctx, b.Namespace, b.Name, true, func(cur meta.Object) (meta.Object, error) {
		pod := meta.DeepCopy(cur.(*core.Pod))
		if pod.DeletionTimestamp != nil {
			return nil, apierrors.NewConflict(pods.gr(), b.Name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", b.Name))
		}
		if pod.Spec.NodeName != "" {
			return nil, apierrors.NewConflict(pods.gr(), b.Name, fmt.Errorf("pod %s is already assigned to node %q", b.Name, pod.Spec.NodeName))
		}
		if b.UID != "" && b.UID != pod.UID {
			return nil, apierrors.NewConflict(pods.gr(), b.Name, fmt.Errorf("precondition failed: UID in binding %v does not match the pod's %v", b.UID, pod.UID))
		}
		pod.Spec.NodeName = b.Target.Name
		core.UpdatePodCondition(&pod.Status, core.PodCondition{Type: core.PodScheduled, Status: meta.ConditionTrue,
			ObservedGeneration: pod.Generation})
		return pod, nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// servePodLog checks a pods/log request and streams the container's log
// from the pod's kubelet (through Config.Kubelet).
func (s *Server) servePodLog(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	if req.Info.Verb != "get" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return
	}
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		writeError(w, err)
		return
	}
	opts, err := core.ParsePodLogOptions(req.Query)
	if err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	pod := obj.(*core.Pod)
	if opts.Container == "" {
		if len(pod.Spec.Containers) != 1 {
			writeError(w, apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod.Name, containerNames(pod))))
			return
		}
		opts.Container = pod.Spec.Containers[0].Name
	}
	if !podHasContainer(pod, opts.Container) {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", opts.Container, pod.Name)))
		return
	}
	if s.kubelet == nil || pod.Spec.NodeName == "" {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: no node agent serves its logs", opts.Container, pod.Name)))
		return
	}
	if websocket.IsWebSocketUpgrade(r) {
		s.servePodLogWebSocket(ctx, w, r, pod, opts)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fw := &flushWriter{w: w}
	if err := s.kubelet.Logs(ctx, pod, opts, fw); err != nil && !fw.wrote {
		writeError(w, err)
	}
}

func containerNames(pod *core.Pod) []string {
	var out []string
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}

// flushWriter flushes after every write so followed logs stream.
type flushWriter struct {
	w     http.ResponseWriter
	wrote bool
}

func (f *flushWriter) Write(b []byte) (int, error) {
	f.wrote = true
	n, err := f.w.Write(b)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}
