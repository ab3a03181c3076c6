package kubelet

import (
	"context"
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri"
)

// containerEnv resolves c's envFrom and env (later entries win), from
// Secrets, ConfigMaps, the pod's fields and the container's resources,
// then adds the Services' variables (serviceEnv) the container does not
// set itself; $(VAR) in env values may name those too. A missing
// non-optional reference returns an error wrapping ErrConfigRef. ips are
// the pod's IPs as the sandbox reports them (status.podIP and
// status.podIPs come from them, as in the kubelet: the API object has no
// IP yet when the first containers are made); nil reads pod's status.
func (k *Kubelet) containerEnv(ctx context.Context, pod *core.Pod, c *core.Container, ips []string) ([]cri.KeyValue, error) {
	svcEnv := k.serviceEnv(pod)
	vals := map[string]string{}
	var order []string
	set := func(name, v string) {
		if _, ok := vals[name]; !ok {
			order = append(order, name)
		}
		vals[name] = v
	}
	src := newRefSource(k.cfg.Client, pod.Namespace)
	for _, ef := range c.EnvFrom {
		data, err := src.envFrom(ctx, ef)
		if err != nil {
			return nil, err
		}
		for key, v := range data {
			set(ef.Prefix+key, v)
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expandEnv(e.Value, withFallback(vals, svcEnv)))
			continue
		}
		v, ok, err := k.envValue(ctx, src, pod, c, e.ValueFrom, ips)
		if err != nil {
			return nil, fmt.Errorf("env %s of container %s: %w", e.Name, c.Name, err)
		}
		if ok {
			set(e.Name, v)
		}
	}
	for _, name := range sortedKeys(svcEnv) {
		if _, ok := vals[name]; !ok {
			set(name, svcEnv[name])
		}
	}
	out := make([]cri.KeyValue, 0, len(order))
	for _, name := range order {
		out = append(out, cri.KeyValue{Key: name, Value: vals[name]})
	}
	return out, nil
}

// withFallback returns vals, with the entries of fallback it lacks.
func withFallback(vals, fallback map[string]string) map[string]string {
	if len(fallback) == 0 {
		return vals
	}
	m := make(map[string]string, len(vals)+len(fallback))
	for k, v := range fallback {
		m[k] = v
	}
	for k, v := range vals {
		m[k] = v
	}
	return m
}

// expandAll expands $(VAR) in each of ss (a container's command or args)
// from the container's env, as the kubelet does; nil stays nil.
func expandAll(ss []string, env map[string]string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = expandEnv(s, env)
	}
	return out
}

// expandSubPath expands a volumeMount's subPathExpr from the container's
// env; a reference to a variable that is unset or empty is an error, as
// in the kubelet.
func expandSubPath(expr string, env map[string]string) (string, error) {
	var missing []string
	seen := map[string]bool{}
	vals := make(map[string]string, len(env))
	for k, v := range env {
		if v != "" {
			vals[k] = v
		}
	}
	out := expandEnv(expr, vals)
	for _, name := range envRefs(expr) {
		if vals[name] == "" && !seen[name] {
			seen[name] = true
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sortStrings(missing)
		return "", fmt.Errorf("%w: missing value for %s", ErrConfigRef, strings.Join(missing, ", "))
	}
	return out, nil
}

// envRefs lists the names of the $(VAR) references in s ($$ escapes).
func envRefs(s string) []string {
	var names []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		switch s[i+1] {
		case '$':
			i++
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return names
			}
			names = append(names, s[i+2:i+end])
			i += end
		}
	}
	return names
}

// expandEnv replaces $(VAR) references to earlier variables, as Kubernetes
// does; $$ escapes a dollar.
func expandEnv(s string, vals map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+end]
			if v, ok := vals[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func (k *Kubelet) envValue(ctx context.Context, src *refSource, pod *core.Pod, c *core.Container, vf *core.EnvVarSource, ips []string) (string, bool, error) {
	switch {
	case vf.ConfigMapKeyRef != nil:
		r := vf.ConfigMapKeyRef
		return src.configMapKey(ctx, r.Name, r.Key, isTrue(r.Optional))
	case vf.SecretKeyRef != nil:
		r := vf.SecretKeyRef
		return src.secretKey(ctx, r.Name, r.Key, isTrue(r.Optional))
	case vf.FieldRef != nil:
		v, err := k.podField(pod, vf.FieldRef.FieldPath, ips)
		return v, err == nil, err
	case vf.ResourceFieldRef != nil:
		v, err := resourceField(pod, c, vf.ResourceFieldRef, k.allocatable())
		return v, err == nil, err
	}
	return "", false, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// podField returns a downward API field of pod; status.podIP(s) come from
// ips when there are any (the sandbox's IPs), else from pod's status.
func (k *Kubelet) podField(pod *core.Pod, path string, ips []string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return k.cfg.NodeIP.String(), nil
	case "status.hostIPs":
		return k.cfg.NodeIP.String(), nil
	case "status.podIP":
		if len(ips) > 0 {
			return ips[0], nil
		}
		return pod.Status.PodIP, nil
	case "status.podIPs":
		if len(ips) > 0 {
			return strings.Join(ips, ","), nil
		}
		return podIPs(pod), nil
	}
	for _, pre := range []string{"metadata.labels['", "metadata.annotations['"} {
		if strings.HasPrefix(path, pre) && strings.HasSuffix(path, "']") {
			key := path[len(pre) : len(path)-2]
			if strings.HasPrefix(pre, "metadata.labels") {
				return pod.Labels[key], nil
			}
			return pod.Annotations[key], nil
		}
	}
	return "", fmt.Errorf("%w: unsupported fieldRef %q", ErrConfigRef, path)
}

// podIPs is the pod's IPs joined by commas, as the downward API gives
// status.podIPs.
func podIPs(pod *core.Pod) string {
	if len(pod.Status.PodIPs) == 0 {
		return pod.Status.PodIP
	}
	ips := make([]string, len(pod.Status.PodIPs))
	for i, ip := range pod.Status.PodIPs {
		ips[i] = ip.IP
	}
	return strings.Join(ips, ",")
}

// needsPodIPs reports whether c's env reads the pod's IPs, so its config
// must wait for the network attachment.
func needsPodIPs(c *core.Container) bool {
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			switch e.ValueFrom.FieldRef.FieldPath {
			case "status.podIP", "status.podIPs":
				return true
			}
		}
	}
	return false
}

func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q\n", k, m[k])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// refSource reads the Secrets and ConfigMaps one pod references, each at
// most once per sync.
type refSource struct {
	secrets    *client.Resource[core.Secret, *core.Secret]
	configMaps *client.Resource[core.ConfigMap, *core.ConfigMap]
	sCache     map[string]*core.Secret
	cCache     map[string]*core.ConfigMap
}

func newRefSource(c *client.Client, ns string) *refSource {
	return &refSource{secrets: client.For[core.Secret](c, ns), configMaps: client.For[core.ConfigMap](c, ns),
		sCache: map[string]*core.Secret{}, cCache: map[string]*core.ConfigMap{}}
}

// secret returns the named Secret, nil if it does not exist.
func (r *refSource) secret(ctx context.Context, name string) (*core.Secret, error) {
	if s, ok := r.sCache[name]; ok {
		return s, nil
	}
	s, err := r.secrets.Get(ctx, name)
	if apierrors.IsNotFound(err) {
		s, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get secret %q: %w", name, err)
	}
	r.sCache[name] = s
	return s, nil
}

// configMap returns the named ConfigMap, nil if it does not exist.
func (r *refSource) configMap(ctx context.Context, name string) (*core.ConfigMap, error) {
	if c, ok := r.cCache[name]; ok {
		return c, nil
	}
	c, err := r.configMaps.Get(ctx, name)
	if apierrors.IsNotFound(err) {
		c, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get configmap %q: %w", name, err)
	}
	r.cCache[name] = c
	return c, nil
}

func (r *refSource) secretKey(ctx context.Context, name, key string, optional bool) (string, bool, error) {
	s, err := r.secret(ctx, name)
	if err != nil {
		return "", false, err
	}
	if s == nil || s.Data[key] == nil {
		if optional {
			return "", false, nil
		}
		if s == nil {
			return "", false, fmt.Errorf("%w: secret %q not found", ErrConfigRef, name)
		}
		return "", false, fmt.Errorf("%w: couldn't find key %s in Secret %s", ErrConfigRef, key, name)
	}
	return string(s.Data[key]), true, nil
}

func (r *refSource) configMapKey(ctx context.Context, name, key string, optional bool) (string, bool, error) {
	c, err := r.configMap(ctx, name)
	if err != nil {
		return "", false, err
	}
	if c != nil {
		if v, ok := c.Data[key]; ok {
			return v, true, nil
		}
		if v, ok := c.BinaryData[key]; ok {
			return string(v), true, nil
		}
	}
	if optional {
		return "", false, nil
	}
	if c == nil {
		return "", false, fmt.Errorf("%w: configmap %q not found", ErrConfigRef, name)
	}
	return "", false, fmt.Errorf("%w: couldn't find key %s in ConfigMap %s", ErrConfigRef, key, name)
}

// envFrom returns the data of an envFrom source.
func (r *refSource) envFrom(ctx context.Context, ef core.EnvFromSource) (map[string]string, error) {
	out := map[string]string{}
	switch {
	case ef.ConfigMapRef != nil:
		c, err := r.configMap(ctx, ef.ConfigMapRef.Name)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if isTrue(ef.ConfigMapRef.Optional) {
				return out, nil
			}
			return nil, fmt.Errorf("%w: configmap %q not found", ErrConfigRef, ef.ConfigMapRef.Name)
		}
		for key, v := range c.Data {
			out[key] = v
		}
	case ef.SecretRef != nil:
		s, err := r.secret(ctx, ef.SecretRef.Name)
		if err != nil {
			return nil, err
		}
		if s == nil {
			if isTrue(ef.SecretRef.Optional) {
				return out, nil
			}
			return nil, fmt.Errorf("%w: secret %q not found", ErrConfigRef, ef.SecretRef.Name)
		}
		for key, v := range s.Data {
			out[key] = string(v)
		}
	}
	return out, nil
}
