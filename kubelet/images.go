package kubelet

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/cri"
)

// ensureImage makes c's image present per its pull policy, recording
// Kubernetes' image Events (Pulling, Pulled, Failed, BackOff,
// ErrImageNeverPull) on the container. On failure it sets the container's
// waiting reason (ErrImagePull, then ImagePullBackOff while the back-off
// holds; ErrImageNeverPull) and returns when to retry.
func (k *Kubelet) ensureImage(ctx context.Context, pod *core.Pod, c *core.Container, ps *podState) (string, time.Duration, error) {
	cs := ps.containers[c.Name]
	event := func(typ, reason, format string, args ...any) { k.containerEvent(pod, cs, typ, reason, format, args...) }
	return k.ensureImageWith(ctx, pod, ps, cs, imagePull{image: c.Image, policy: pullPolicy(c), event: event})
}

// imagePull is one image to make present: a container's image or an
// image volume's (pod.spec.volumes[].image).
type imagePull struct {
	image  string
	policy core.PullPolicy
	// event records an Event about the pull: on the container for its
	// image, on the pod for an image volume, as the kubelet does.
	event func(eventType, reason, format string, args ...any)
}

// ensureImageWith makes p.image present per p.policy through the
// runtime, with the pod's pull credentials; cs is the container waiting
// for it, whose waiting reason a failure sets.
func (k *Kubelet) ensureImageWith(ctx context.Context, pod *core.Pod, ps *podState, cs *ctrState, p imagePull) (string, time.Duration, error) {
	spec := cri.ImageSpec{Image: p.image}
	if p.policy != core.PullAlways {
		img, err := k.cfg.Runtime.ImageStatus(ctx, spec)
		if err == nil {
			p.event(core.EventTypeNormal, EventPulled, "Container image %q already present on machine", p.image)
			return imageRefOf(img, p.image), 0, nil
		}
		if !errors.Is(err, cri.ErrImageNotFound) && !errors.Is(err, cri.ErrNotFound) {
			p.event(core.EventTypeWarning, EventInspectFailed, "Failed to inspect image %q: %v", p.image, err)
			cs.waiting = &core.ContainerStateWaiting{Reason: ReasonErrImagePull, Message: err.Error()}
			return "", retryAfterError, err
		}
		if p.policy == core.PullNever {
			msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", p.image)
			p.event(core.EventTypeWarning, EventErrImageNeverPull, "%s", msg)
			cs.waiting = &core.ContainerStateWaiting{Reason: ReasonErrImageNeverPull, Message: msg}
			return "", k.cfg.ResyncInterval, fmt.Errorf("%w: %s", ErrImageNeverPull, p.image)
		}
	}
	b := ps.pulls[p.image]
	if b == nil {
		b = &backoff{}
		ps.pulls[p.image] = b
	}
	now := time.Now()
	if b.waiting(now) {
		msg := fmt.Sprintf("Back-off pulling image %q", p.image)
		p.event(core.EventTypeNormal, EventBackOff, "%s", msg)
		p.event(core.EventTypeWarning, EventFailed, "Error: %s", ReasonImagePullBackOff)
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonImagePullBackOff, Message: msg}
		return "", time.Until(b.until), fmt.Errorf("%w: back-off", ErrImagePull)
	}
	p.event(core.EventTypeNormal, EventPulling, "Pulling image %q", p.image)
	auths := k.pullAuths(ctx, pod, p.image)
	var err error
	for _, a := range auths {
		if _, err = k.cfg.Runtime.PullImage(ctx, spec, a); err == nil {
			break
		}
	}
	if err != nil {
		b.next(now, k.cfg.ImagePullBackOff, k.cfg.MaxBackOff)
		p.event(core.EventTypeWarning, EventFailed, "Failed to pull image %q: %v", p.image, err)
		p.event(core.EventTypeWarning, EventFailed, "Error: %s", ReasonErrImagePull)
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonErrImagePull,
			Message: fmt.Sprintf("failed to pull image %q: %v", p.image, err)}
		return "", time.Until(b.until), fmt.Errorf("%w: %s: %w", ErrImagePull, p.image, err)
	}
	delete(ps.pulls, p.image)
	k.recordPulled(ctx, p, spec, time.Since(now))
	return p.image, 0, nil
}

// recordPulled records the Pulled Event of a finished pull, with the
// image's size when the runtime knows it.
func (k *Kubelet) recordPulled(ctx context.Context, p imagePull, spec cri.ImageSpec, took time.Duration) {
	if _, off := k.rec.(record.Discard); off {
		return // no image status call for nothing
	}
	took = took.Truncate(time.Millisecond)
	msg := fmt.Sprintf("Successfully pulled image %q in %v (%v including waiting)", spec.Image, took, took)
	if img, err := k.cfg.Runtime.ImageStatus(ctx, spec); err == nil && img.Size > 0 {
		msg += fmt.Sprintf(". Image size: %d bytes.", img.Size)
	}
	p.event(core.EventTypeNormal, EventPulled, "%s", msg)
}

// pullPolicy is c's imagePullPolicy, defaulted as the API server does.
func pullPolicy(c *core.Container) core.PullPolicy {
	if c.ImagePullPolicy != "" {
		return c.ImagePullPolicy
	}
	ref := c.Image
	if i := strings.LastIndex(ref, "/"); i >= 0 {
		ref = ref[i+1:]
	}
	if !strings.Contains(ref, ":") || strings.HasSuffix(ref, ":latest") {
		return core.PullAlways
	}
	return core.PullIfNotPresent
}

func imageRefOf(img cri.Image, name string) string {
	if name != "" {
		return name
	}
	return img.ID
}

// pullAuths returns the credentials to try for image: those of the pod's
// imagePullSecrets that name the image's registry, then anonymous (nil).
func (k *Kubelet) pullAuths(ctx context.Context, pod *core.Pod, image string) []*cri.AuthConfig {
	var out []*cri.AuthConfig
	reg := registryOf(image)
	secrets := client.For[core.Secret](k.cfg.Client, pod.Namespace)
	for _, ref := range pod.Spec.ImagePullSecrets {
		s, err := secrets.Get(ctx, ref.Name)
		if err != nil {
			k.cfg.Logger.Info("image pull secret", "pod", podKey(pod), "secret", ref.Name, "err", err)
			continue
		}
		out = append(out, dockerAuths(s, reg)...)
	}
	return append(out, nil)
}

// registryOf returns the registry host of an image reference.
func registryOf(image string) string {
	first, _, ok := strings.Cut(image, "/")
	if !ok || !strings.ContainsAny(first, ".:") && first != "localhost" {
		return "docker.io"
	}
	return first
}

// dockerConfig is the content of a kubernetes.io/dockerconfigjson secret.
type dockerConfig struct {
	Auths map[string]dockerAuth `json:"auths"`
}

type dockerAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Auth     string `json:"auth"`
}

// dockerAuths returns the entries of a docker config secret for registry.
func dockerAuths(s *core.Secret, registry string) []*cri.AuthConfig {
	var cfg dockerConfig
	if b, ok := s.Data[".dockerconfigjson"]; ok {
		if json.Unmarshal(b, &cfg) != nil {
			return nil
		}
	} else if b, ok := s.Data[".dockercfg"]; ok {
		if json.Unmarshal(b, &cfg.Auths) != nil {
			return nil
		}
	}
	var out []*cri.AuthConfig
	for server, a := range cfg.Auths {
		host := strings.TrimPrefix(strings.TrimPrefix(server, "https://"), "http://")
		host, _, _ = strings.Cut(host, "/")
		if host != registry {
			continue
		}
		ac := &cri.AuthConfig{Username: a.Username, Password: a.Password, ServerAddress: host}
		if a.Auth != "" && ac.Username == "" {
			if dec, err := base64.StdEncoding.DecodeString(a.Auth); err == nil {
				ac.Username, ac.Password, _ = strings.Cut(string(dec), ":")
			}
		}
		out = append(out, ac)
	}
	return out
}
