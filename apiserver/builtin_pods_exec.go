package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// servePodExec checks a pods/exec request as kube-apiserver does and
// proxies it to the pod's kubelet (through Config.Kubelet).
func (s *Server) servePodExec(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	pod := s.streamingPod(ctx, w, r, req)
	if pod == nil {
		return
	}
	opts, err := podExecOptions(req, pod)
	if err != nil {
		writeError(w, err)
		return
	}
	opts.TypeMeta = meta.TypeMeta{APIVersion: "v1", Kind: "PodExecOptions"}
	if err := s.admitConnect(ctx, req, pod, "PodExecOptions", &opts); err != nil {
		writeError(w, err)
		return
	}
	if s.kubelet == nil {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s: no node agent serves exec", pod.Name)))
		return
	}
	if err := s.kubelet.Exec(ctx, pod, opts, w, r); err != nil {
		writeError(w, err)
	}
}

// podExecOptions reads the query and checks it against the pod, with
// kube-apiserver's messages.
func podExecOptions(req *Request, pod *core.Pod) (core.PodExecOptions, error) {
	opts, err := core.ParsePodExecOptions(req.Query)
	if err != nil {
		return opts, apierrors.NewBadRequest(err.Error())
	}
	if opts.Container, err = streamTarget(pod, opts.Container); err != nil {
		return opts, err
	}
	if pod.Status.Phase == core.PodSucceeded || pod.Status.Phase == core.PodFailed {
		return opts, apierrors.NewBadRequest(fmt.Sprintf("cannot exec into a container in a completed pod; current phase is %s", pod.Status.Phase))
	}
	return opts, nil
}

func podHasContainer(pod *core.Pod, name string) bool {
	has := func(cs []core.Container) bool {
		return slices.ContainsFunc(cs, func(c core.Container) bool { return c.Name == name })
	}
	if has(pod.Spec.Containers) || has(pod.Spec.InitContainers) {
		return true
	}
	return slices.ContainsFunc(pod.Spec.EphemeralContainers, func(c core.EphemeralContainer) bool { return c.Name == name })
}
