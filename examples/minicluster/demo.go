package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/images"
)

// runDemo runs the scenario the seeds describe, with the real kubectl, and
// returns an error naming the first step that did not hold:
// create deployment → 3 pods Running on the real node answering HTTP on
// their IPs → logs → scale to 5 → set image + rollout status → rollout
// undo → delete, and everything the Deployment owned is gone. While it
// runs, the pipeline is printed as the API server sees it.
func runDemo(ctx context.Context, c *cluster) error {
	if len(c.nodes) == 0 {
		return fmt.Errorf("the demo runs pods on a real node: start with --nodes 1 (the default)")
	}
	if c.opts.SimNodes > 0 && !c.opts.SimNodeTaint {
		return fmt.Errorf("the demo runs pods on real nodes: with --sim-nodes, taint the simulated nodes (--sim-node-taint)")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	d := &demo{c: c, kubeconfig: c.cp.AdminKubeconfig}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go d.printPipeline(wctx)
	hello := images.HelloRef
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"kubectl create deployment web --image=" + hello + " --replicas=3", func(ctx context.Context) error {
			_, err := d.kubectl(ctx, "create", "deployment", "web", "--image="+hello, "--replicas=3", "--port=8080")
			return err
		}},
		{"3 pods Running on a real node, each answering HTTP on its pod IP", func(ctx context.Context) error { return d.podsServe(ctx, 3) }},
		{"kubectl logs", d.logs},
		{"kubectl scale deployment web --replicas=5", func(ctx context.Context) error {
			if _, err := d.kubectl(ctx, "scale", "deployment", "web", "--replicas=5"); err != nil {
				return err
			}
			return d.podsServe(ctx, 5)
		}},
		{"kubectl expose deployment web --port=80 --target-port=8080: EndpointSlices, and the API server's proxy reaches a pod", d.serviceProxy},
		{"kubectl set image deployment/web hello=" + helloV2 + " && kubectl rollout status", func(ctx context.Context) error {
			if _, err := d.kubectl(ctx, "set", "image", "deployment/web", "hello="+helloV2); err != nil {
				return err
			}
			return d.rolledOutTo(ctx, helloV2)
		}},
		{"kubectl rollout undo deployment/web", func(ctx context.Context) error {
			if _, err := d.kubectl(ctx, "rollout", "undo", "deployment/web"); err != nil {
				return err
			}
			return d.rolledOutTo(ctx, hello)
		}},
		{"kubectl delete deployment web: everything it owned is gone", d.deleteAll},
	}
	for i, s := range steps {
		c.step("demo %d/%d: %s", i+1, len(steps), s.name)
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("demo step %d (%s): %w", i+1, s.name, err)
		}
	}
	c.step("demo: every step held")
	return nil
}

type demo struct {
	c          *cluster
	kubeconfig string
}

// kubectl runs the real kubectl and returns its output.
func (d *demo) kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", d.kubeconfig, "-n", "default"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	fmt.Fprintf(d.c.opts.Out, "          $ kubectl %s\n", strings.Join(args, " "))
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line != "" {
			fmt.Fprintf(d.c.opts.Out, "            %s\n", line)
		}
	}
	return out.String(), nil
}

// webPods lists the Running, ready pods of the web Deployment.
func (d *demo) webPods(ctx context.Context) ([]core.Pod, error) {
	list, err := client.For[core.Pod](d.c.admin, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return nil, err
	}
	var out []core.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == core.PodRunning && core.IsPodReady(&p) && p.Status.PodIP != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// podsServe waits until n web pods run on real nodes and each answers
// GET / on its pod IP with its own name.
func (d *demo) podsServe(ctx context.Context, n int) error {
	return poll(ctx, func() (bool, error) {
		pods, err := d.webPods(ctx)
		if err != nil || len(pods) != n {
			return false, err
		}
		for _, p := range pods {
			if !strings.HasPrefix(p.Spec.NodeName, "node-") {
				return false, fmt.Errorf("pod %s runs on %s, not a real node", p.Name, p.Spec.NodeName)
			}
			body, err := httpGet(ctx, "http://"+p.Status.PodIP+":8080/")
			if err != nil || strings.TrimSpace(body) != p.Name {
				return false, nil
			}
		}
		for _, p := range pods {
			fmt.Fprintf(d.c.opts.Out, "            %s on %s at %s answers %q\n", p.Name, p.Spec.NodeName, p.Status.PodIP, p.Name)
		}
		return true, nil
	})
}

// serviceProxy exposes the Deployment and reaches it through the API
// server's services/proxy and pods/proxy, as `kubectl proxy` users do;
// the Service's EndpointSlices list the five pods. It deletes the Service
// afterwards.
func (d *demo) serviceProxy(ctx context.Context) error {
	if _, err := d.kubectl(ctx, "expose", "deployment", "web", "--port=80", "--target-port=8080"); err != nil {
		return err
	}
	pods, err := d.webPods(ctx)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, p := range pods {
		names[p.Name] = true
	}
	err = poll(ctx, func() (bool, error) {
		list, err := client.For[discovery.EndpointSlice](d.c.admin, "default").List(ctx,
			client.ListOptions{LabelSelector: discovery.LabelServiceName + "=web"})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, s := range list.Items {
			for _, e := range s.Endpoints {
				if e.IsReady() && e.TargetRef != nil && names[e.TargetRef.Name] {
					ready++
				}
			}
		}
		return ready == len(pods), nil
	})
	if err != nil {
		return fmt.Errorf("EndpointSlices of web: %w", err)
	}
	if _, err := d.kubectl(ctx, "get", "endpointslices", "-l", discovery.LabelServiceName+"=web"); err != nil {
		return err
	}
	// the proxy's Service is programmed by the time its slices are: the
	// API server reads them from storage
	out, err := d.kubectl(ctx, "get", "--raw", "/api/v1/namespaces/default/services/web:80/proxy/")
	if err != nil || !names[strings.TrimSpace(out)] {
		return fmt.Errorf("services/web:80/proxy/ answered %q, not a web pod's name: %v", out, err)
	}
	out, err = d.kubectl(ctx, "get", "--raw", "/api/v1/namespaces/default/pods/"+pods[0].Name+":8080/proxy/healthz")
	if err != nil || strings.TrimSpace(out) != "ok" {
		return fmt.Errorf("pods/%s:8080/proxy/healthz answered %q: %v", pods[0].Name, out, err)
	}
	_, err = d.kubectl(ctx, "delete", "service", "web")
	return err
}

func (d *demo) logs(ctx context.Context) error {
	pods, err := d.webPods(ctx)
	if err != nil || len(pods) == 0 {
		return fmt.Errorf("no web pod to read logs from: %v", err)
	}
	out, err := d.kubectl(ctx, "logs", pods[0].Name)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "GET /") {
		return fmt.Errorf("the log of %s does not show the HTTP request: %q", pods[0].Name, out)
	}
	return nil
}

// rolledOutTo runs kubectl rollout status and checks every pod runs image.
func (d *demo) rolledOutTo(ctx context.Context, image string) error {
	if _, err := d.kubectl(ctx, "rollout", "status", "deployment/web", "--timeout=120s"); err != nil {
		return err
	}
	return poll(ctx, func() (bool, error) {
		pods, err := d.webPods(ctx)
		if err != nil || len(pods) != 5 {
			return false, err
		}
		for _, p := range pods {
			if p.Spec.Containers[0].Image != image {
				return false, nil
			}
		}
		return true, nil
	})
}

// deleteAll deletes the Deployment and waits until no ReplicaSet or pod of
// it is left.
func (d *demo) deleteAll(ctx context.Context) error {
	if _, err := d.kubectl(ctx, "delete", "deployment", "web"); err != nil {
		return err
	}
	return poll(ctx, func() (bool, error) {
		rs, err := client.For[apps.ReplicaSet](d.c.admin, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		pods, err := client.For[core.Pod](d.c.admin, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		return len(rs.Items) == 0 && len(pods.Items) == 0, nil
	})
}

// printPipeline prints, as they happen, the changes the API server sees
// for the demo's Deployment, ReplicaSets and pods.
func (d *demo) printPipeline(ctx context.Context) {
	out := d.c.opts.Out
	seen := map[string]bool{} // key/state already printed
	say := func(key, state, format string, args ...any) {
		if seen[key+"/"+state] {
			return
		}
		seen[key+"/"+state] = true
		fmt.Fprintf(out, "          · "+format+"\n", args...)
	}
	rs, err1 := client.For[apps.ReplicaSet](d.c.admin, "default").Watch(ctx, client.ListOptions{LabelSelector: "app=web"})
	pods, err2 := client.For[core.Pod](d.c.admin, "default").Watch(ctx, client.ListOptions{LabelSelector: "app=web"})
	if err1 != nil || err2 != nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-rs:
			if !ok {
				return
			}
			if r := ev.Object; r != nil && ev.Type == "ADDED" {
				say("rs/"+r.Name, "created", "ReplicaSet %s created (template hash %s) and stored", r.Name, r.Labels["pod-template-hash"])
			}
		case ev, ok := <-pods:
			if !ok {
				return
			}
			if p := ev.Object; p != nil {
				d.podStage(p, ev.Type, say)
			}
		}
	}
}

// podStage prints the stages a pod reached that were not printed yet, in
// pipeline order (one status write may carry several: the kubelet reports
// the IP and readiness together when the containers start fast).
func (d *demo) podStage(p *core.Pod, typ string, say func(key, state, format string, args ...any)) {
	k := "pod/" + p.Name
	switch {
	case typ == "DELETED":
		say(k, "deleted", "pod %s deleted", p.Name)
		return
	case p.DeletionTimestamp != nil:
		say(k, "terminating", "pod %s terminating", p.Name)
		return
	}
	stages := []struct {
		reached bool
		state   string
		print   func()
	}{
		{true, "created", func() {
			say(k, "created", "pod %s created by the ReplicaSet controller: admitted, initialized, stored", p.Name)
		}},
		{p.Spec.NodeName != "", "scheduled", func() { say(k, "scheduled", "pod %s scheduled to %s (binding stored)", p.Name, p.Spec.NodeName) }},
		{p.Status.PodIP != "", "ip", func() { say(k, "ip", "pod %s: sandbox up, IP %s from CNI", p.Name, p.Status.PodIP) }},
		{p.Status.Phase == core.PodRunning && core.IsPodReady(p), "ready", func() { say(k, "ready", "pod %s started: containers running and ready", p.Name) }},
	}
	for _, s := range stages {
		if s.reached {
			s.print()
		}
	}
}

// poll calls f until it is done, fails, or ctx ends.
func poll(ctx context.Context, f func() (bool, error)) error {
	var last error
	for {
		done, err := f()
		if done {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
			}
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func httpGet(ctx context.Context, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return string(b), err
}
