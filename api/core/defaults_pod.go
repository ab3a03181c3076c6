package core

import "strings"

// DefaultPod fills the defaults the API server applies to a new or
// updated Pod: those of its spec (DefaultPodSpec), requests copied from
// limits where a container sets only a limit, host ports equal to container
// ports on the host network, enableServiceLinks true, and podIP/podIPs and
// hostIP/hostIPs kept in step. It is idempotent.
func DefaultPod(pod *Pod) {
	DefaultPodSpec(&pod.Spec)
	if pod.Spec.EnableServiceLinks == nil {
		pod.Spec.EnableServiceLinks = ptr(true)
	}
	for _, cs := range [][]Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			defaultRequestsFromLimits(&cs[i].Resources)
			if pod.Spec.HostNetwork {
				defaultHostNetworkPorts(cs[i].Ports)
			}
		}
	}
	if pod.Spec.Resources != nil {
		defaultRequestsFromLimits(pod.Spec.Resources)
	}
	syncPodIPs(&pod.Status)
}

// syncPodIPs keeps podIP/podIPs and hostIP/hostIPs in step, as Kubernetes'
// conversion does: the single field is the first of the list.
func syncPodIPs(s *PodStatus) {
	switch {
	case s.PodIP == "" && len(s.PodIPs) > 0:
		s.PodIP = s.PodIPs[0].IP
	case s.PodIP != "" && len(s.PodIPs) == 0:
		s.PodIPs = []PodIP{{IP: s.PodIP}}
	}
	switch {
	case s.HostIP == "" && len(s.HostIPs) > 0:
		s.HostIP = s.HostIPs[0].IP
	case s.HostIP != "" && len(s.HostIPs) == 0:
		s.HostIPs = []HostIP{{IP: s.HostIP}}
	}
}

// DefaultPodTemplateSpec fills the defaults of a pod template, as a
// workload controller's kind defaults its template (the spec only).
func DefaultPodTemplateSpec(t *PodTemplateSpec) { DefaultPodSpec(&t.Spec) }

// DefaultPodSpec fills the defaults of a pod spec: restartPolicy Always,
// dnsPolicy ClusterFirst, terminationGracePeriodSeconds 30, schedulerName
// default-scheduler, an empty securityContext, serviceAccount and
// serviceAccountName kept equal, resource quantities rounded up to
// thousandths, and the defaults of every container and volume. Workload
// kinds apply it to their pod templates.
func DefaultPodSpec(spec *PodSpec) {
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = RestartPolicyAlways
	}
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = DNSClusterFirst
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr(DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = DefaultSchedulerName
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &PodSecurityContext{}
	}
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	for i := range spec.InitContainers {
		DefaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.EphemeralContainers {
		DefaultContainer(&spec.EphemeralContainers[i].Container)
	}
	for i := range spec.Containers {
		DefaultContainer(&spec.Containers[i])
	}
	for i := range spec.Volumes {
		DefaultVolume(&spec.Volumes[i])
	}
	roundUpToMilli(spec.Overhead)
	if spec.Resources != nil {
		roundUpToMilli(spec.Resources.Limits)
		roundUpToMilli(spec.Resources.Requests)
	}
}

// DefaultContainer fills a container's defaults: imagePullPolicy (Always
// for a ":latest" or untagged image, else IfNotPresent),
// terminationMessagePath /dev/termination-log, terminationMessagePolicy
// File, port protocol TCP, resource quantities rounded up to thousandths,
// and the defaults of probes, hooks and downward-API environment variables.
func DefaultContainer(c *Container) {
	roundUpToMilli(c.Resources.Limits)
	roundUpToMilli(c.Resources.Requests)
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = DefaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil && vf.FieldRef != nil {
			defaultFieldSelector(vf.FieldRef)
		}
	}
	for _, p := range []*Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			DefaultProbe(p)
		}
	}
	if c.Lifecycle != nil {
		for _, h := range []*LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil && h.HTTPGet != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

// DefaultPullPolicy returns the pull policy Kubernetes gives image when
// the container names none: Always when the tag is "latest" or there is
// neither tag nor digest, IfNotPresent otherwise.
func DefaultPullPolicy(image string) PullPolicy {
	if image == "" {
		return PullIfNotPresent
	}
	name, _, hasDigest := strings.Cut(image, "@")
	tag := ""
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		tag = name[i+1:]
	}
	if tag == "latest" || (tag == "" && !hasDigest) {
		return PullAlways
	}
	return PullIfNotPresent
}

// DefaultProbe fills a probe's defaults: timeout 1s, period 10s, success
// threshold 1, failure threshold 3, and those of its handler.
func DefaultProbe(p *Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if p.HTTPGet != nil {
		defaultHTTPGet(p.HTTPGet)
	}
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr("")
	}
}

func defaultHTTPGet(h *HTTPGetAction) {
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = URISchemeHTTP
	}
}

func defaultFieldSelector(s *ObjectFieldSelector) {
	if s.APIVersion == "" {
		s.APIVersion = "v1"
	}
}

// defaultRequestsFromLimits sets each missing request to its limit.
func defaultRequestsFromLimits(r *ResourceRequirements) {
	if len(r.Limits) == 0 {
		return
	}
	if r.Requests == nil {
		r.Requests = ResourceList{}
	}
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = q.DeepCopy()
		}
	}
}

func defaultHostNetworkPorts(ports []ContainerPort) {
	for i := range ports {
		if ports[i].HostPort == 0 {
			ports[i].HostPort = ports[i].ContainerPort
		}
	}
}

// DefaultVolume fills a volume's defaults: an emptyDir when no source is
// set, file mode 0644 on secret, configMap, downwardAPI and projected
// volumes, an empty hostPath type, a one-hour token expiry on projected
// service account tokens, an image volume's pull policy as a container
// image's (Always for ":latest" or untagged, else IfNotPresent).
func DefaultVolume(v *Volume) {
	s := &v.VolumeSource
	if *s == (VolumeSource{}) {
		s.EmptyDir = &EmptyDirVolumeSource{}
	}
	switch {
	case s.HostPath != nil:
		defaultHostPath(s.HostPath)
	case s.Secret != nil:
		defaultMode(&s.Secret.DefaultMode)
	case s.ConfigMap != nil:
		defaultMode(&s.ConfigMap.DefaultMode)
	case s.DownwardAPI != nil:
		defaultMode(&s.DownwardAPI.DefaultMode)
		defaultDownwardFiles(s.DownwardAPI.Items)
	case s.Projected != nil:
		defaultMode(&s.Projected.DefaultMode)
		defaultProjections(s.Projected.Sources)
	case s.Image != nil:
		if s.Image.PullPolicy == "" {
			s.Image.PullPolicy = DefaultPullPolicy(s.Image.Reference)
		}
	}
}

func defaultProjections(sources []VolumeProjection) {
	for i := range sources {
		if t := sources[i].ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
			t.ExpirationSeconds = ptr(int64(3600))
		}
		if d := sources[i].DownwardAPI; d != nil {
			defaultDownwardFiles(d.Items)
		}
	}
}

func defaultDownwardFiles(items []DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil {
			defaultFieldSelector(items[i].FieldRef)
		}
	}
}

func defaultHostPath(h *HostPathVolumeSource) {
	if h.Type == nil {
		h.Type = ptr(HostPathUnset)
	}
}

func defaultMode(m **int32) {
	if *m == nil {
		*m = ptr(SecretVolumeDefaultMode)
	}
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
