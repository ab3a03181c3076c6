package core

import (
	"github.com/orkit/orkit/api/field"
)

// validateVolumes checks a pod's volumes and returns the set of their names.
func validateVolumes(volumes []Volume, p *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range volumes {
		v, ip := &volumes[i], p.Index(i)
		np := ip.Child("name")
		errs = append(errs, validateVolumeSource(&v.VolumeSource, ip)...)
		if v.Name == "" {
			errs = append(errs, field.Required(np, ""))
		} else {
			errs = append(errs, validateDNS1123Label(v.Name, np)...)
		}
		if names[v.Name] {
			errs = append(errs, field.Duplicate(np, v.Name))
		} else if v.Name != "" {
			names[v.Name] = true
		}
	}
	return names, errs
}

// volumeCheck is a set volume source and its validator.
type volumeCheck struct {
	name string
	run  func(*field.Path) field.ErrorList
}

// volumeSourceChecks pairs each set source with its validator, in field order.
func volumeSourceChecks(s *VolumeSource) []volumeCheck {
	var checks []volumeCheck
	add := func(set bool, name string, fn func(*field.Path) field.ErrorList) {
		if set {
			checks = append(checks, volumeCheck{name, fn})
		}
	}
	add(s.HostPath != nil, "hostPath", func(fp *field.Path) field.ErrorList { return validateHostPath(s.HostPath, fp) })
	add(s.EmptyDir != nil, "emptyDir", func(fp *field.Path) field.ErrorList { return validateEmptyDir(s.EmptyDir, fp) })
	add(s.Secret != nil, "secret", func(fp *field.Path) field.ErrorList { return validateSecretVolume(s.Secret, fp) })
	add(s.NFS != nil, "nfs", func(fp *field.Path) field.ErrorList { return validateNFS(s.NFS, fp) })
	add(s.PersistentVolumeClaim != nil, "persistentVolumeClaim", func(fp *field.Path) field.ErrorList {
		if s.PersistentVolumeClaim.ClaimName == "" {
			return field.ErrorList{field.Required(fp.Child("claimName"), "")}
		}
		return nil
	})
	add(s.DownwardAPI != nil, "downwardAPI", func(fp *field.Path) field.ErrorList {
		errs := validateFileMode(s.DownwardAPI.DefaultMode, fp.Child("defaultMode"))
		return append(errs, validateDownwardFiles(s.DownwardAPI.Items, fp.Child("items"))...)
	})
	add(s.ConfigMap != nil, "configMap", func(fp *field.Path) field.ErrorList { return validateConfigMapVolume(s.ConfigMap, fp) })
	add(s.CSI != nil, "csi", func(fp *field.Path) field.ErrorList {
		if s.CSI.Driver == "" {
			return field.ErrorList{field.Required(fp.Child("driver"), "")}
		}
		return nil
	})
	add(s.Projected != nil, "projected", func(fp *field.Path) field.ErrorList { return validateProjected(s.Projected, fp) })
	add(s.Image != nil, "image", func(fp *field.Path) field.ErrorList { return validateImageVolume(s.Image, fp) })
	add(s.Ephemeral != nil, "ephemeral", func(fp *field.Path) field.ErrorList {
		if len(s.Ephemeral.VolumeClaimTemplate) == 0 {
			return field.ErrorList{field.Required(fp.Child("volumeClaimTemplate"), "")}
		}
		return nil
	})
	return checks
}

func validateVolumeSource(s *VolumeSource, p *field.Path) field.ErrorList {
	checks := volumeSourceChecks(s)
	if len(checks) == 0 {
		return field.ErrorList{field.Required(p, "must specify a volume type")}
	}
	errs := checks[0].run(p.Child(checks[0].name))
	for _, c := range checks[1:] {
		errs = append(errs, field.Forbidden(p.Child(c.name), "may not specify more than 1 volume type"))
	}
	return errs
}

// validateImageVolume checks an image volume as kube-apiserver does: a
// reference, and a pull policy (defaulting sets one) of the container
// image's values.
func validateImageVolume(iv *ImageVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if iv.Reference == "" {
		errs = append(errs, field.Required(p.Child("reference"), ""))
	}
	return append(errs, validateEnum(iv.PullPolicy, true, p.Child("pullPolicy"), PullAlways, PullIfNotPresent, PullNever)...)
}

var hostPathTypes = []HostPathType{
	HostPathUnset, HostPathBlockDev, HostPathCharDev, HostPathDirectory, HostPathDirectoryOrCreate,
	HostPathFile, HostPathFileOrCreate, HostPathSocket,
}

func validateHostPath(h *HostPathVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	if h.Type != nil {
		ok := false
		for _, t := range hostPathTypes {
			ok = ok || t == *h.Type
		}
		if !ok {
			valid := make([]string, len(hostPathTypes))
			for i, t := range hostPathTypes {
				valid[i] = string(t)
			}
			errs = append(errs, field.NotSupported(p.Child("type"), string(*h.Type), valid))
		}
	}
	return errs
}

func validateEmptyDir(e *EmptyDirVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if e.SizeLimit != nil && e.SizeLimit.Sign() < 0 {
		errs = append(errs, field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
	}
	return append(errs, validateEnum(e.Medium, false, p.Child("medium"), StorageMediumMemory, StorageMediumHugePages)...)
}

func validateNFS(n *NFSVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if n.Server == "" {
		errs = append(errs, field.Required(p.Child("server"), ""))
	}
	if n.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	} else if n.Path[0] != '/' {
		errs = append(errs, field.Invalid(p.Child("path"), n.Path, "must be an absolute path"))
	}
	return errs
}

func validateSecretVolume(s *SecretVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.SecretName == "" {
		errs = append(errs, field.Required(p.Child("secretName"), ""))
	}
	errs = append(errs, validateFileMode(s.DefaultMode, p.Child("defaultMode"))...)
	return append(errs, validateKeyToPaths(s.Items, p.Child("items"))...)
}

func validateConfigMapVolume(c *ConfigMapVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	errs = append(errs, validateFileMode(c.DefaultMode, p.Child("defaultMode"))...)
	return append(errs, validateKeyToPaths(c.Items, p.Child("items"))...)
}

func validateKeyToPaths(items []KeyToPath, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, it := range items {
		ip := p.Index(i)
		if it.Key == "" {
			errs = append(errs, field.Required(ip.Child("key"), ""))
		}
		if it.Path == "" {
			errs = append(errs, field.Required(ip.Child("path"), ""))
		}
		errs = append(errs, validateLocalDescendingPath(it.Path, ip.Child("path"))...)
		errs = append(errs, validateFileMode(it.Mode, ip.Child("mode"))...)
	}
	return errs
}

func validateDownwardFiles(items []DownwardAPIVolumeFile, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range items {
		ip := p.Index(i)
		if f.Path == "" {
			errs = append(errs, field.Required(ip.Child("path"), ""))
		}
		errs = append(errs, validateLocalDescendingPath(f.Path, ip.Child("path"))...)
		switch {
		case f.FieldRef != nil && f.ResourceFieldRef != nil:
			errs = append(errs, field.Invalid(ip, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		case f.FieldRef != nil:
			errs = append(errs, validateObjectFieldSelector(f.FieldRef, ip.Child("fieldRef"))...)
		case f.ResourceFieldRef != nil:
			errs = append(errs, validateResourceFieldSelector(f.ResourceFieldRef, true, ip.Child("resourceFieldRef"))...)
		default:
			errs = append(errs, field.Required(ip, "one of fieldRef and resourceFieldRef is required"))
		}
		errs = append(errs, validateFileMode(f.Mode, ip.Child("mode"))...)
	}
	return errs
}

func validateProjected(pv *ProjectedVolumeSource, p *field.Path) field.ErrorList {
	errs := validateFileMode(pv.DefaultMode, p.Child("defaultMode"))
	paths := projectedPaths{}
	for i, s := range pv.Sources {
		ip := p.Child("sources").Index(i)
		n := 0
		if s.Secret != nil {
			n++
			errs = append(errs, validateKeyToPaths(s.Secret.Items, ip.Child("secret", "items"))...)
		}
		if s.ConfigMap != nil {
			n++
			errs = append(errs, validateKeyToPaths(s.ConfigMap.Items, ip.Child("configMap", "items"))...)
		}
		if s.DownwardAPI != nil {
			n++
			errs = append(errs, validateDownwardFiles(s.DownwardAPI.Items, ip.Child("downwardAPI", "items"))...)
		}
		if t := s.ServiceAccountToken; t != nil {
			n++
			errs = append(errs, validateTokenProjection(t, ip.Child("serviceAccountToken"))...)
		}
		if c := s.ClusterTrustBundle; c != nil {
			n++
			errs = append(errs, validateClusterTrustBundleProjection(c, ip.Child("clusterTrustBundle"))...)
			errs = append(errs, paths.add(p, c.Path)...)
		}
		if c := s.PodCertificate; c != nil {
			n++
			errs = append(errs, validatePodCertificateProjection(c, ip.Child("podCertificate"))...)
			for _, f := range []string{c.CredentialBundlePath, c.KeyPath, c.CertificateChainPath} {
				errs = append(errs, paths.add(p, f)...)
			}
		}
		if n != 1 {
			errs = append(errs, field.Forbidden(ip, "may not specify more than 1 volume type per source"))
		}
	}
	return errs
}

func validateTokenProjection(t *ServiceAccountTokenProjection, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.ExpirationSeconds != nil && *t.ExpirationSeconds < 600 {
		errs = append(errs, field.Invalid(p.Child("expirationSeconds"), *t.ExpirationSeconds,
			"may not specify a duration less than 10 minutes"))
	}
	if t.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	return append(errs, validateLocalDescendingPath(t.Path, p.Child("path"))...)
}
