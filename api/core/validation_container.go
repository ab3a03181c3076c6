package core

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/validation"
)

// containerContext is what container validation needs from the pod.
type containerContext struct {
	volumes       map[string]bool
	gracePeriod   int64
	restartPolicy RestartPolicy
}

// validateContainers checks the app containers; names records every name seen.
func validateContainers(cs []Container, ctx containerContext, names map[string]bool, p *field.Path) field.ErrorList {
	if len(cs) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for i := range cs {
		c, ip := &cs[i], p.Index(i)
		errs = append(errs, validateContainerCommon(c, ctx, names, ip)...)
		errs = append(errs, validateProbes(c, ip)...)
		errs = append(errs, validateResizePolicy(c, ctx.restartPolicy, ip.Child("resizePolicy"))...)
		if c.RestartPolicy != nil {
			errs = append(errs, field.Forbidden(ip.Child("restartPolicy"), "may not be set for non-init containers"))
		}
	}
	return append(errs, validateHostPortConflicts(cs, p)...)
}

// validateHostPortConflicts reports a host port (with its IP and protocol)
// used twice among containers that run at the same time.
func validateHostPortConflicts(cs []Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for ci := range cs {
		for pi, port := range cs[ci].Ports {
			if port.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", port.HostIP, port.Protocol, port.HostPort)
			if seen[key] {
				errs = append(errs, field.Duplicate(p.Index(ci).Child("ports").Index(pi).Child("hostPort"), key))
			}
			seen[key] = true
		}
	}
	return errs
}

// validateInitContainers checks the init containers; regular ones may not
// have probes or hooks, sidecars (restartPolicy Always) may.
func validateInitContainers(cs []Container, ctx containerContext, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range cs {
		c, ip := &cs[i], p.Index(i)
		errs = append(errs, validateContainerCommon(c, ctx, names, ip)...)
		if c.RestartPolicy != nil && *c.RestartPolicy != ContainerRestartPolicyAlways {
			errs = append(errs, field.NotSupported(ip.Child("restartPolicy"), string(*c.RestartPolicy),
				[]string{string(ContainerRestartPolicyAlways)}))
		}
		if len(c.ResizePolicy) > 0 && !IsRestartableInitContainer(c) {
			errs = append(errs, field.Invalid(ip.Child("resizePolicy"), "", "must not be set for init containers"))
		} else if len(c.ResizePolicy) > 0 {
			// A sidecar restarts whatever the pod's policy.
			errs = append(errs, validateResizePolicy(c, RestartPolicyAlways, ip.Child("resizePolicy"))...)
		}
		errs = append(errs, validateHostPortConflicts(cs[i:i+1], p)...)
		if IsRestartableInitContainer(c) {
			errs = append(errs, validateProbes(c, ip)...)
			continue
		}
		const why = "may not be set for init containers without restartPolicy=Always"
		if c.Lifecycle != nil {
			errs = append(errs, field.Forbidden(ip.Child("lifecycle"), why))
		}
		if c.LivenessProbe != nil {
			errs = append(errs, field.Forbidden(ip.Child("livenessProbe"), why))
		}
		if c.ReadinessProbe != nil {
			errs = append(errs, field.Forbidden(ip.Child("readinessProbe"), why))
		}
		if c.StartupProbe != nil {
			errs = append(errs, field.Forbidden(ip.Child("startupProbe"), why))
		}
	}
	return errs
}

// validateContainerCommon checks what every kind of container shares.
func validateContainerCommon(c *Container, ctx containerContext, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("name")
	if c.Name == "" {
		errs = append(errs, field.Required(np, ""))
	} else {
		errs = append(errs, validateDNS1123Label(c.Name, np)...)
	}
	if names[c.Name] {
		errs = append(errs, field.Duplicate(np, c.Name))
	} else {
		names[c.Name] = true
	}
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	} else if c.Image != strings.TrimSpace(c.Image) {
		errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	errs = append(errs, validateEnum(c.ImagePullPolicy, true, p.Child("imagePullPolicy"),
		PullAlways, PullIfNotPresent, PullNever)...)
	errs = append(errs, validateTerminationMessagePolicy(c.TerminationMessagePolicy, p.Child("terminationMessagePolicy"))...)
	errs = append(errs, validateContainerPorts(c.Ports, p.Child("ports"))...)
	errs = append(errs, validateEnvFrom(c.EnvFrom, p.Child("envFrom"))...)
	errs = append(errs, validateEnv(c.Env, p.Child("env"))...)
	privileged := c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	errs = append(errs, validateVolumeMounts(c.VolumeMounts, ctx.volumes, privileged, p.Child("volumeMounts"))...)
	errs = append(errs, validateResourceRequirements(&c.Resources, p.Child("resources"))...)
	errs = append(errs, validateSecurityContext(c.SecurityContext, p.Child("securityContext"))...)
	if c.Lifecycle != nil {
		errs = append(errs, validateLifecycle(c.Lifecycle, ctx.gracePeriod, p.Child("lifecycle"))...)
	}
	return errs
}

func validateTerminationMessagePolicy(v TerminationMessagePolicy, p *field.Path) field.ErrorList {
	const msg = "must be 'File' or 'FallbackToLogsOnError'"
	switch v {
	case TerminationMessageReadFile, TerminationMessageFallbackToLogsOnError:
		return nil
	case "":
		return field.ErrorList{field.Required(p, msg)}
	}
	return field.ErrorList{field.Invalid(p, string(v), msg)}
}

func validateContainerPorts(ports []ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		ip := p.Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) != 0 {
				errs = append(errs, invalidAll(ip.Child("name"), port.Name, msgs)...)
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(ip.Child("containerPort"), ""))
		} else {
			errs = append(errs, invalidAll(ip.Child("containerPort"), port.ContainerPort,
				validation.IsValidPortNum(int(port.ContainerPort)))...)
		}
		if port.HostPort != 0 {
			errs = append(errs, invalidAll(ip.Child("hostPort"), port.HostPort, validation.IsValidPortNum(int(port.HostPort)))...)
		}
		errs = append(errs, validateEnum(port.Protocol, true, ip.Child("protocol"), ProtocolSCTP, ProtocolTCP, ProtocolUDP)...)
	}
	return errs
}

// validateEnvVarName checks an environment variable name with Kubernetes'
// relaxed rule: printable ASCII other than '='.
func validateEnvVarName(name string, p *field.Path) field.ErrorList {
	for _, r := range name {
		if r < ' ' || r > '~' || r == '=' {
			return field.ErrorList{field.Invalid(p, name,
				"a valid environment variable name must consist only of printable ASCII characters other than '='")}
		}
	}
	return nil
}

func validateEnvFrom(sources []EnvFromSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range sources {
		ip := p.Index(i)
		if s.Prefix != "" {
			errs = append(errs, validateEnvVarName(s.Prefix, ip.Child("prefix"))...)
		}
		n := 0
		if s.ConfigMapRef != nil {
			n++
			errs = append(errs, validateRefName(s.ConfigMapRef.Name, ip.Child("configMapRef", "name"))...)
		}
		if s.SecretRef != nil {
			n++
			errs = append(errs, validateRefName(s.SecretRef.Name, ip.Child("secretRef", "name"))...)
		}
		switch {
		case n == 0:
			errs = append(errs, field.Invalid(ip, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, field.Invalid(ip, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

func validateRefName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return validateDNS1123Subdomain(name, p)
}

func validateEnv(vars []EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range vars {
		ip := p.Index(i)
		if ev.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else {
			errs = append(errs, validateEnvVarName(ev.Name, ip.Child("name"))...)
		}
		if ev.ValueFrom != nil {
			errs = append(errs, validateEnvVarSource(ev, ip.Child("valueFrom"))...)
		}
	}
	return errs
}

func validateEnvVarSource(ev EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	src, n := ev.ValueFrom, 0
	if src.FieldRef != nil {
		n++
		errs = append(errs, validateObjectFieldSelector(src.FieldRef, p.Child("fieldRef"))...)
	}
	if src.ResourceFieldRef != nil {
		n++
		errs = append(errs, validateResourceFieldSelector(src.ResourceFieldRef, false, p.Child("resourceFieldRef"))...)
	}
	if r := src.ConfigMapKeyRef; r != nil {
		n++
		errs = append(errs, validateKeySelector(r.Name, r.Key, p.Child("configMapKeyRef"))...)
	}
	if r := src.SecretKeyRef; r != nil {
		n++
		errs = append(errs, validateKeySelector(r.Name, r.Key, p.Child("secretKeyRef"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case n > 1:
		errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	case ev.Value != "":
		errs = append(errs, field.Invalid(p, "", "may not be specified when `value` is not empty"))
	}
	return errs
}

func validateKeySelector(name, key string, p *field.Path) field.ErrorList {
	errs := validateRefName(name, p.Child("name"))
	if key == "" {
		return append(errs, field.Required(p.Child("key"), ""))
	}
	return append(errs, invalidAll(p.Child("key"), key, IsConfigMapKey(key))...)
}

// validFieldPaths are the pod fields the downward API exposes.
var validFieldPaths = []string{
	"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
}

var subscriptedFieldPath = regexp.MustCompile(`^metadata\.(labels|annotations)\['([^']+)'\]$`)

func validateObjectFieldSelector(s *ObjectFieldSelector, p *field.Path) field.ErrorList {
	if s.APIVersion == "" {
		return field.ErrorList{field.Required(p.Child("apiVersion"), "")}
	}
	if s.FieldPath == "" {
		return field.ErrorList{field.Required(p.Child("fieldPath"), "")}
	}
	if s.APIVersion != "v1" {
		return field.ErrorList{field.Invalid(p.Child("apiVersion"), s.APIVersion, `unsupported version: must be "v1"`)}
	}
	if m := subscriptedFieldPath.FindStringSubmatch(s.FieldPath); m != nil {
		return validateQualifiedName(strings.ToLower(m[2]), p.Child("fieldPath"))
	}
	for _, v := range validFieldPaths {
		if v == s.FieldPath {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(p.Child("fieldPath"), s.FieldPath, validFieldPaths)}
}

var validContainerResources = []string{
	"limits.cpu", "limits.ephemeral-storage", "limits.memory",
	"requests.cpu", "requests.ephemeral-storage", "requests.memory",
}

// validateResourceFieldSelector checks a downward API resource selector as
// kube-apiserver does: a volume file must name its container (an env var
// defaults to its own), the resource is one the downward API projects, and a
// set divisor is one of the units the resource's family supports. A zero
// divisor (client-go sends "0" for an unset one) means unset.
func validateResourceFieldSelector(s *ResourceFieldSelector, volume bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case volume && s.ContainerName == "":
		errs = append(errs, field.Required(p.Child("containerName"), ""))
	case s.Resource == "":
		errs = append(errs, field.Required(p.Child("resource"), ""))
	case !isDownwardResource(s.Resource):
		errs = append(errs, field.NotSupported(p.Child("resource"), s.Resource, validContainerResources))
	}
	return append(errs, validateResourceDivisor(s.Resource, s.Divisor, p)...)
}

func isDownwardResource(name string) bool {
	if strings.HasPrefix(name, "limits.hugepages-") || strings.HasPrefix(name, "requests.hugepages-") {
		return true
	}
	for _, v := range validContainerResources {
		if v == name {
			return true
		}
	}
	return false
}

// cpuDivisors and byteDivisors are the divisors kube-apiserver accepts, by
// the family of the selected resource.
var (
	cpuDivisors  = []string{"1m", "1"}
	byteDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)

// validateResourceDivisor checks a non-zero divisor against its resource's
// family, with kube-apiserver's messages (the value shown is the resource).
func validateResourceDivisor(res string, div resource.Quantity, p *field.Path) field.ErrorList {
	if div.IsZero() {
		return nil
	}
	var allowed []string
	var family string
	switch {
	case res == "limits.cpu" || res == "requests.cpu":
		allowed, family = cpuDivisors, "cpu"
	case res == "limits.memory" || res == "requests.memory":
		allowed, family = byteDivisors, "memory"
	case res == "limits.ephemeral-storage" || res == "requests.ephemeral-storage":
		allowed, family = byteDivisors, "local ephemeral storage"
	case strings.HasPrefix(res, "limits.hugepages-") || strings.HasPrefix(res, "requests.hugepages-"):
		allowed, family = byteDivisors, "hugepages"
	default:
		return nil
	}
	if slices.Contains(allowed, div.String()) {
		return nil
	}
	values := strings.Join(allowed, ", ")
	if family == "cpu" {
		values = "1m and 1"
	}
	return field.ErrorList{field.Invalid(p.Child("divisor"), res,
		fmt.Sprintf("only divisor's values %s are supported with the %s resource", values, family))}
}

func validateMountPropagation(mp MountPropagationMode, privileged bool, p *field.Path) field.ErrorList {
	errs := validateEnum(mp, true, p, MountPropagationBidirectional, MountPropagationHostToContainer, MountPropagationNone)
	if mp == MountPropagationBidirectional && !privileged {
		errs = append(errs, field.Forbidden(p, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return errs
}

// validateVolumeMounts checks mounts of declared volumes at unique paths;
// privileged says whether the container may propagate mounts back.
func validateVolumeMounts(mounts []VolumeMount, volumes map[string]bool, privileged bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range mounts {
		ip := p.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		}
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(ip.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(ip.Child("mountPath"), ""))
		} else if paths[m.MountPath] {
			errs = append(errs, field.Invalid(ip.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths[m.MountPath] = true
		if m.SubPath != "" {
			errs = append(errs, validateLocalDescendingPath(m.SubPath, ip.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(ip.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, validateLocalDescendingPath(m.SubPathExpr, ip.Child("subPathExpr"))...)
		}
		if m.MountPropagation != nil {
			errs = append(errs, validateMountPropagation(*m.MountPropagation, privileged, ip.Child("mountPropagation"))...)
		}
	}
	return errs
}

// validateResourceRequirements checks resource names and quantities, and
// that no request exceeds its limit (or differs from it, for resources
// that cannot be overcommitted).
func validateResourceRequirements(r *ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := p.Child("limits"), p.Child("requests")
	for _, name := range sortedNames(r.Limits) {
		kp := limPath.Key(string(name))
		errs = append(errs, validateContainerResourceName(name, kp)...)
		errs = append(errs, validateQuantity(name, r.Limits[name], kp)...)
	}
	for _, name := range sortedNames(r.Requests) {
		q, kp := r.Requests[name], reqPath.Key(string(name))
		errs = append(errs, validateContainerResourceName(name, kp)...)
		errs = append(errs, validateQuantity(name, q, kp)...)
		lim, ok := r.Limits[name]
		switch {
		case ok && q.Cmp(lim) != 0 && !isOvercommitAllowed(name):
			errs = append(errs, field.Invalid(reqPath, q.String(),
				fmt.Sprintf("must be equal to %s limit of %s", name, lim.String())))
		case ok && q.Cmp(lim) > 0:
			errs = append(errs, field.Invalid(reqPath, q.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		case !ok && !isOvercommitAllowed(name):
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
	}
	if hasHugePages(r.Limits, r.Requests) && !hasCPUOrMemory(r.Limits, r.Requests) {
		errs = append(errs, field.Forbidden(p, "HugePages require cpu or memory"))
	}
	return errs
}

func hasHugePages(lists ...ResourceList) bool {
	for _, l := range lists {
		for n := range l {
			if IsHugePageResourceName(n) {
				return true
			}
		}
	}
	return false
}

func hasCPUOrMemory(lists ...ResourceList) bool {
	for _, l := range lists {
		if _, ok := l[ResourceCPU]; ok {
			return true
		}
		if _, ok := l[ResourceMemory]; ok {
			return true
		}
	}
	return false
}

// Probes and hooks ---------------------------------------------------------

func validateProbes(c *Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.LivenessProbe != nil {
		errs = append(errs, validateProbe(c.LivenessProbe, p.Child("livenessProbe"))...)
		if c.LivenessProbe.SuccessThreshold != 1 {
			errs = append(errs, field.Invalid(p.Child("livenessProbe", "successThreshold"), c.LivenessProbe.SuccessThreshold, "must be 1"))
		}
	}
	if c.ReadinessProbe != nil {
		errs = append(errs, validateProbe(c.ReadinessProbe, p.Child("readinessProbe"))...)
		if c.ReadinessProbe.TerminationGracePeriodSeconds != nil {
			errs = append(errs, field.Invalid(p.Child("readinessProbe", "terminationGracePeriodSeconds"),
				*c.ReadinessProbe.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
	}
	if c.StartupProbe != nil {
		errs = append(errs, validateProbe(c.StartupProbe, p.Child("startupProbe"))...)
		if c.StartupProbe.SuccessThreshold != 1 {
			errs = append(errs, field.Invalid(p.Child("startupProbe", "successThreshold"), c.StartupProbe.SuccessThreshold, "must be 1"))
		}
	}
	return errs
}

func validateProbe(pr *Probe, p *field.Path) field.ErrorList {
	h := pr.ProbeHandler
	errs := validateHandler(handlers{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, grpc: h.GRPC}, 0, p)
	errs = append(errs, validateNonnegative(int64(pr.InitialDelaySeconds), p.Child("initialDelaySeconds"))...)
	errs = append(errs, validateNonnegative(int64(pr.TimeoutSeconds), p.Child("timeoutSeconds"))...)
	errs = append(errs, validateNonnegative(int64(pr.PeriodSeconds), p.Child("periodSeconds"))...)
	errs = append(errs, validateNonnegative(int64(pr.SuccessThreshold), p.Child("successThreshold"))...)
	errs = append(errs, validateNonnegative(int64(pr.FailureThreshold), p.Child("failureThreshold"))...)
	if g := pr.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

func validateLifecycle(l *Lifecycle, gracePeriod int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, hook := range []struct {
		name string
		h    *LifecycleHandler
	}{{"postStart", l.PostStart}, {"preStop", l.PreStop}} {
		if h := hook.h; h != nil {
			errs = append(errs, validateHandler(handlers{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket,
				sleep: h.Sleep}, gracePeriod, p.Child(hook.name))...)
		}
	}
	return errs
}

// handlers is the union of probe and hook actions.
type handlers struct {
	exec      *ExecAction
	httpGet   *HTTPGetAction
	tcpSocket *TCPSocketAction
	grpc      *GRPCAction
	sleep     *SleepAction
}

func validateHandler(h handlers, gracePeriod int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if h.exec != nil {
		n++
		if len(h.exec.Command) == 0 {
			errs = append(errs, field.Required(p.Child("exec", "command"), ""))
		}
	}
	if h.httpGet != nil {
		if n++; n > 1 {
			errs = append(errs, field.Forbidden(p.Child("httpGet"), "may not specify more than 1 handler type"))
		} else {
			errs = append(errs, validateHTTPGet(h.httpGet, p.Child("httpGet"))...)
		}
	}
	if h.tcpSocket != nil {
		if n++; n > 1 {
			errs = append(errs, field.Forbidden(p.Child("tcpSocket"), "may not specify more than 1 handler type"))
		} else {
			errs = append(errs, validatePortNumOrName(h.tcpSocket.Port, p.Child("tcpSocket", "port"))...)
		}
	}
	if h.grpc != nil {
		if n++; n > 1 {
			errs = append(errs, field.Forbidden(p.Child("grpc"), "may not specify more than 1 handler type"))
		} else {
			errs = append(errs, invalidAll(p.Child("grpc", "port"), h.grpc.Port, validation.IsValidPortNum(int(h.grpc.Port)))...)
		}
	}
	if h.sleep != nil {
		if n++; n > 1 {
			errs = append(errs, field.Forbidden(p.Child("sleep"), "may not specify more than 1 handler type"))
		} else if h.sleep.Seconds < 0 || h.sleep.Seconds > gracePeriod {
			errs = append(errs, field.Invalid(p.Child("sleep", "seconds"), h.sleep.Seconds,
				fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", gracePeriod)))
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a handler type"))
	}
	return errs
}

var httpHeaderNameRE = regexp.MustCompile(`^[-A-Za-z0-9]+$`)

func validateHTTPGet(h *HTTPGetAction, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h.Path == "" {
		errs = append(errs, field.Required(p.Child("path"), ""))
	}
	errs = append(errs, validatePortNumOrName(h.Port, p.Child("port"))...)
	errs = append(errs, validateEnum(h.Scheme, false, p.Child("scheme"), URISchemeHTTP, URISchemeHTTPS)...)
	for i, hdr := range h.HTTPHeaders {
		if !httpHeaderNameRE.MatchString(hdr.Name) {
			errs = append(errs, field.Invalid(p.Child("httpHeaders").Index(i).Child("name"), hdr.Name,
				"a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"))
		}
	}
	return errs
}

func validatePortNumOrName(port meta.IntOrString, p *field.Path) field.ErrorList {
	if port.IsString {
		return invalidAll(p, port.StrVal, validation.IsValidPortName(port.StrVal))
	}
	return invalidAll(p, port.IntVal, validation.IsValidPortNum(int(port.IntVal)))
}

// Security contexts --------------------------------------------------------

func validateSecurityContext(sc *SecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateID(sc.RunAsUser, p.Child("runAsUser"))...)
	errs = append(errs, validateID(sc.RunAsGroup, p.Child("runAsGroup"))...)
	if sc.Privileged != nil && *sc.Privileged && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		errs = append(errs, field.Invalid(p, "", "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, p.Child("seccompProfile"))...)
	return errs
}

func validatePodSecurityContext(sc *PodSecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateID(sc.RunAsUser, p.Child("runAsUser"))...)
	errs = append(errs, validateID(sc.RunAsGroup, p.Child("runAsGroup"))...)
	errs = append(errs, validateID(sc.FSGroup, p.Child("fsGroup"))...)
	for i, g := range sc.SupplementalGroups {
		errs = append(errs, validateID(&g, p.Child("supplementalGroups").Index(i))...)
	}
	names := map[string]bool{}
	for i, s := range sc.Sysctls {
		fp := p.Child("sysctls").Index(i).Child("name")
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(fp, ""))
		case len(s.Name) > sysctlMaxLength || !sysctlNameRE.MatchString(s.Name):
			errs = append(errs, field.Invalid(fp, s.Name,
				fmt.Sprintf("must have at most %d characters and match regex %s", sysctlMaxLength, sysctlNameRE)))
		case names[s.Name]:
			errs = append(errs, field.Duplicate(fp, s.Name))
		}
		names[s.Name] = true
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, p.Child("seccompProfile"))...)
	return errs
}

// sysctlMaxLength and sysctlNameRE are what a sysctl name must satisfy
// (segments of [a-z0-9]([-_a-z0-9]*[a-z0-9])? joined by "." or "/"), as
// kube-apiserver validates them.
const sysctlMaxLength = 253

var sysctlNameRE = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

func validateID(id *int64, p *field.Path) field.ErrorList {
	if id != nil && (*id < 0 || *id > 2147483647) {
		return field.ErrorList{field.Invalid(p, *id, inclusiveRangeError(0, 2147483647))}
	}
	return nil
}

func validateSeccompProfile(s *SeccompProfile, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := validateEnum(s.Type, true, p.Child("type"),
		SeccompProfileTypeLocalhost, SeccompProfileTypeRuntimeDefault, SeccompProfileTypeUnconfined)
	switch {
	case s.Type == SeccompProfileTypeLocalhost && (s.LocalhostProfile == nil || *s.LocalhostProfile == ""):
		errs = append(errs, field.Required(p.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
	case s.Type != SeccompProfileTypeLocalhost && s.LocalhostProfile != nil:
		errs = append(errs, field.Invalid(p.Child("localhostProfile"), *s.LocalhostProfile,
			"can only be set when seccomp type is Localhost"))
	}
	return errs
}
