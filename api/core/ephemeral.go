package core

import (
	"fmt"
	"reflect"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// EphemeralContainer is a container added to a running pod for debugging
// (core/v1 EphemeralContainer): the fields of a Container (ports,
// probes, lifecycle hooks, resources and restartPolicy are not allowed)
// and the container whose namespaces it targets.
type EphemeralContainer struct {
	Container `json:",inline"`
	// TargetContainerName names the pod container whose process namespace
	// the ephemeral container joins (when the runtime supports it); empty
	// means the pod's shared namespaces only.
	TargetContainerName string `json:"targetContainerName,omitempty"`
}

// validateEphemeralContainers checks a pod's ephemeral containers: each
// a valid container (name a DNS label unique across all the pod's
// containers, an image, environment, mounts of declared volumes) without
// the fields Kubernetes forbids on them, and a target that names one of
// the pod's containers.
func validateEphemeralContainers(spec *PodSpec, ctx containerContext, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	targets := map[string]bool{}
	for _, c := range spec.Containers {
		targets[c.Name] = true
	}
	for _, c := range spec.InitContainers {
		targets[c.Name] = true
	}
	for i := range spec.EphemeralContainers {
		ec, ip := &spec.EphemeralContainers[i], p.Index(i)
		errs = append(errs, validateContainerCommon(&ec.Container, ctx, names, ip)...)
		for _, f := range ephemeralForbidden(&ec.Container) {
			errs = append(errs, field.Forbidden(ip.Child(f), "cannot be set for an Ephemeral Container"))
		}
		if ec.TargetContainerName != "" && !targets[ec.TargetContainerName] {
			errs = append(errs, field.NotFound(ip.Child("targetContainerName"), ec.TargetContainerName))
		}
	}
	return errs
}

// ephemeralForbidden names the fields set on c that an ephemeral
// container may not have.
func ephemeralForbidden(c *Container) []string {
	var out []string
	set := map[string]bool{"ports": len(c.Ports) > 0, "livenessProbe": c.LivenessProbe != nil,
		"readinessProbe": c.ReadinessProbe != nil, "startupProbe": c.StartupProbe != nil,
		"lifecycle": c.Lifecycle != nil, "restartPolicy": c.RestartPolicy != nil,
		"resources": len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0}
	for _, f := range []string{"ports", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "resources", "restartPolicy"} {
		if set[f] {
			out = append(out, f)
		}
	}
	return out
}

// ValidatePodCreate checks a new pod: ValidatePod, and no ephemeral
// containers (they are added to a running pod only).
func ValidatePodCreate(pod *Pod) field.ErrorList {
	errs := ValidatePod(pod)
	if len(pod.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "ephemeralContainers"), "cannot be set on create"))
	}
	return errs
}

// ValidatePodEphemeralContainersUpdate checks an update through the
// pods/ephemeralcontainers subresource: newPod valid, its metadata changed
// only as metadata may, and existing ephemeral containers neither removed
// nor changed (Kubernetes' messages).
func ValidatePodEphemeralContainersUpdate(newPod, oldPod *Pod) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePod(newPod)...)
	p := field.NewPath("spec", "ephemeralContainers")
	byName := map[string]*EphemeralContainer{}
	for i := range newPod.Spec.EphemeralContainers {
		byName[newPod.Spec.EphemeralContainers[i].Name] = &newPod.Spec.EphemeralContainers[i]
	}
	for _, old := range oldPod.Spec.EphemeralContainers {
		n, ok := byName[old.Name]
		if !ok {
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", old.Name)))
			continue
		}
		if !reflect.DeepEqual(old, *n) {
			errs = append(errs, field.Forbidden(p.Key(old.Name), fmt.Sprintf("existing ephemeral containers %q may not be changed\n", old.Name)))
		}
	}
	return errs
}
