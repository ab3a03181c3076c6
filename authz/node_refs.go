package authz

import "github.com/orkit/orkit/api/core"

// podReferences returns the names of the objects of resource (secrets,
// configmaps or persistentvolumeclaims) that pod p uses, in p's namespace.
func podReferences(p *core.Pod, resource string) []string {
	var names []string
	add := func(n string) {
		if n != "" {
			names = append(names, n)
		}
	}
	for _, v := range p.Spec.Volumes {
		volumeReferences(v, resource, add)
	}
	if resource == "secrets" {
		for _, s := range p.Spec.ImagePullSecrets {
			add(s.Name)
		}
	}
	for _, c := range append(append([]core.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		containerReferences(c, resource, add)
	}
	return names
}

func volumeReferences(v core.Volume, resource string, add func(string)) {
	switch resource {
	case "secrets":
		if v.Secret != nil {
			add(v.Secret.SecretName)
		}
		if v.CSI != nil && v.CSI.NodePublishSecretRef != nil {
			add(v.CSI.NodePublishSecretRef.Name)
		}
	case "configmaps":
		if v.ConfigMap != nil {
			add(v.ConfigMap.Name)
		}
	case "persistentvolumeclaims":
		if v.PersistentVolumeClaim != nil {
			add(v.PersistentVolumeClaim.ClaimName)
		}
	}
	if v.Projected == nil {
		return
	}
	for _, src := range v.Projected.Sources {
		switch {
		case resource == "secrets" && src.Secret != nil:
			add(src.Secret.Name)
		case resource == "configmaps" && src.ConfigMap != nil:
			add(src.ConfigMap.Name)
		}
	}
}

func containerReferences(c core.Container, resource string, add func(string)) {
	for _, e := range c.EnvFrom {
		switch {
		case resource == "secrets" && e.SecretRef != nil:
			add(e.SecretRef.Name)
		case resource == "configmaps" && e.ConfigMapRef != nil:
			add(e.ConfigMapRef.Name)
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		switch {
		case resource == "secrets" && e.ValueFrom.SecretKeyRef != nil:
			add(e.ValueFrom.SecretKeyRef.Name)
		case resource == "configmaps" && e.ValueFrom.ConfigMapKeyRef != nil:
			add(e.ValueFrom.ConfigMapKeyRef.Name)
		}
	}
}

// PodReferences returns the names of the objects of resource ("secrets",
// "configmaps" or "persistentvolumeclaims") pod p uses, in p's namespace,
// as the Node authorizer sees them: volumes (projected and CSI too),
// imagePullSecrets, env valueFrom and envFrom of every container. Another
// resource has none. Pure; p is not changed.
func PodReferences(p *core.Pod, resource string) []string {
	return podReferences(p, resource)
}
