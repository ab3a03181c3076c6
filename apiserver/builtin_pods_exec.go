package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
)

// PodExecOptions are the query parameters of pods/exec (PodExecOptions in
// Kubernetes): the container, the command and which streams to attach.
type PodExecOptions struct {
	Container string
	Command   []string
	Stdin     bool
	Stdout    bool
	Stderr    bool
	TTY       bool
}

// PodExecFunc serves a pods/exec request the API server has
// authenticated, authorized (get, and create as since Kubernetes 1.31)
// and checked (the pod exists, is bound and not finished; the container is
// the pod's): it proxies the connection upgrade in r, and the stream after
// it, to the pod's node agent, answering on w. w supports Hijack through
// http.ResponseController. It returns when the stream has ended; it
// writes its own errors (as a meta Status) to w.
type PodExecFunc func(ctx context.Context, pod *core.Pod, opts PodExecOptions, w http.ResponseWriter, r *http.Request)

// SetPodExec sets the function that serves pods/exec; without one,
// pods/exec answers 400.
func (s *Server) SetPodExec(f PodExecFunc) {
	s.mu.Lock()
	s.podExec = f
	s.mu.Unlock()
}

// servePodExec checks a pods/exec request as kube-apiserver does and hands
// it to the PodExecFunc.
func (s *Server) servePodExec(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	if req.Info.Verb != "get" && req.Info.Verb != "create" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return
	}
	if req.Info.Verb == "get" {
		// A WebSocket upgrade is a GET; like kube-apiserver since 1.31
		// (AuthorizePodWebsocketUpgradeCreatePermission) it needs create
		// too, the verb SPDY's POST is authorized with.
		create := *req.Info
		create.Verb = "create"
		if err := s.authorize(ctx, req.User, &create, r); err != nil {
			writeError(w, err)
			return
		}
	}
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		writeError(w, err)
		return
	}
	pod := obj.(*core.Pod)
	opts, err := podExecOptions(req, pod)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.RLock()
	exec := s.podExec
	s.mu.RUnlock()
	if exec == nil {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("pod %s: no node agent serves exec", pod.Name)))
		return
	}
	exec(ctx, pod, opts, w, r)
}

// podExecOptions reads the query and checks it against the pod, with
// kube-apiserver's messages.
func podExecOptions(req *Request, pod *core.Pod) (PodExecOptions, error) {
	q := req.Query
	flag := func(name string) bool { v := q.Get(name); return v == "true" || v == "1" }
	opts := PodExecOptions{Container: q.Get("container"), Command: q["command"],
		Stdin: flag("stdin"), Stdout: flag("stdout"), Stderr: flag("stderr"), TTY: flag("tty")}
	if len(opts.Command) == 0 {
		return opts, apierrors.NewBadRequest("you must specify at least 1 command")
	}
	if !opts.Stdin && !opts.Stdout && !opts.Stderr {
		return opts, apierrors.NewBadRequest("you must specify at least 1 of stdin, stdout, stderr")
	}
	if opts.Container == "" {
		if len(pod.Spec.Containers) != 1 {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]",
				pod.Name, strings.Join(containerNames(pod), " ")))
		}
		opts.Container = pod.Spec.Containers[0].Name
	}
	if !podHasContainer(pod, opts.Container) {
		return opts, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", opts.Container, pod.Name))
	}
	if pod.Spec.NodeName == "" {
		return opts, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.Name))
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
	return has(pod.Spec.Containers) || has(pod.Spec.InitContainers)
}
