package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// streamingPod runs the checks every streaming subresource (exec, attach,
// portforward) shares, as kube-apiserver does: verb get or create, and a
// WebSocket upgrade (a GET) authorized for create too (since 1.31,
// AuthorizePodWebsocketUpgradeCreatePermission); then it reads the pod.
// On failure it has answered and returns nil.
func (s *Server) streamingPod(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) *core.Pod {
	if req.Info.Verb != "get" && req.Info.Verb != "create" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return nil
	}
	if req.Info.Verb == "get" {
		create := *req.Info
		create.Verb = "create"
		if err := s.authorize(ctx, req.User, &create, r); err != nil {
			writeError(w, err)
			return nil
		}
	}
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		writeError(w, err)
		return nil
	}
	return obj.(*core.Pod)
}

// servePodAttach checks a pods/attach request and proxies it to the
// pod's kubelet.
func (s *Server) servePodAttach(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	pod := s.streamingPod(ctx, w, r, req)
	if pod == nil {
		return
	}
	opts, err := podAttachOptions(req, pod)
	if err != nil {
		writeError(w, err)
		return
	}
	opts.TypeMeta = meta.TypeMeta{APIVersion: "v1", Kind: "PodAttachOptions"}
	if err := s.admitConnect(ctx, req, pod, "PodAttachOptions", &opts); err != nil {
		writeError(w, err)
		return
	}
	if s.kubelet == nil {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s: no node agent serves attach", pod.Name)))
		return
	}
	if err := s.kubelet.Attach(ctx, pod, opts, w, r); err != nil {
		writeError(w, err)
	}
}

// podAttachOptions reads the query and checks it against the pod, with
// kube-apiserver's messages.
func podAttachOptions(req *Request, pod *core.Pod) (core.PodAttachOptions, error) {
	opts, err := core.ParsePodAttachOptions(req.Query)
	if err != nil {
		return opts, apierrors.NewBadRequest(err.Error())
	}
	if opts.Container, err = streamTarget(pod, opts.Container); err != nil {
		return opts, err
	}
	return opts, nil
}

// servePodPortForward checks a pods/portforward request and proxies it
// to the pod's kubelet, which forwards the ports the client's streams
// name inside the pod's network namespace.
func (s *Server) servePodPortForward(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	pod := s.streamingPod(ctx, w, r, req)
	if pod == nil {
		return
	}
	opts, err := core.ParsePodPortForwardOptions(req.Query)
	if err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	if pod.Spec.NodeName == "" {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name)))
		return
	}
	opts.TypeMeta = meta.TypeMeta{APIVersion: "v1", Kind: "PodPortForwardOptions"}
	if err := s.admitConnect(ctx, req, pod, "PodPortForwardOptions", &opts); err != nil {
		writeError(w, err)
		return
	}
	if s.kubelet == nil {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s: no node agent serves port forwarding", pod.Name)))
		return
	}
	if err := s.kubelet.PortForward(ctx, pod, opts, w, r); err != nil {
		writeError(w, err)
	}
}

// streamTarget checks the container a streaming request (exec, attach)
// names, or picks the pod's only one, and that the pod has a node, with
// kube-apiserver's messages.
func streamTarget(pod *core.Pod, container string) (string, error) {
	if container == "" {
		if len(pod.Spec.Containers) != 1 {
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]",
				pod.Name, strings.Join(containerNames(pod), " ")))
		}
		container = pod.Spec.Containers[0].Name
	}
	if !podHasContainer(pod, container) {
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
	}
	if pod.Spec.NodeName == "" {
		return "", apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name))
	}
	return container, nil
}
