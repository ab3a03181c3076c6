// Package core holds the core/v1 object model of orkit: Pod, Node, Namespace,
// Secret, ConfigMap, Service, Endpoints, Binding, Event, ResourceQuota,
// LimitRange, PersistentVolume, PersistentVolumeClaim and ServiceAccount,
// with their lists, constants and well-known names.
//
// Every type marshals to JSON exactly as Kubernetes core/v1 does for the
// fields it carries — same field names, same omitempty rules, pointers where
// Kubernetes has pointers — so kubectl and Kubernetes client libraries read
// and write these objects unchanged. The one deliberate difference is that
// non-pointer timestamps that are zero are omitted ("omitzero") where
// Kubernetes prints null; decoders treat the two the same.
//
// Besides the types the package provides what the API server and the
// components around it need for these kinds:
//
//   - defaulting (DefaultPod, DefaultService, ...), filling the fields the
//     Kubernetes API server fills before validation;
//   - validation (ValidatePod, ValidatePodUpdate, ...), returning a
//     field.ErrorList whose messages read as Kubernetes' do;
//   - helpers many components share: GetPodQOS and ComputePodQOS,
//     PodRequests, IsPodReady, GetPodCondition, UpdatePodCondition,
//     ResourceList accessors (Cpu, Memory, Pods, ...), Toleration.ToleratesTaint,
//     GetNodeCondition, NewObjectReference, PodMatchesNodeAffinity,
//     TolerationsTolerateTaint;
//   - the options of the pods/log and pods/exec subresources (PodLogOptions,
//     PodExecOptions) with their query encodings, both the API server's and
//     the one it uses to reach the kubelet (KubeletQuery), so neither side
//     imports the other;
//   - Register (and Types), which add every core kind to a scheme.Scheme.
//
// The API server applies, for each write, Default and then Validate (or
// ValidateUpdate against the stored object), as Kubernetes does; the
// status subresources have their own checks (ValidatePodStatusUpdate,
// ValidateServiceStatusUpdate, ValidateNamespaceFinalizeUpdate).
//
// The golden files in testdata are objects as `kubectl get -o json` prints
// them; the tests decode them, re-encode them and compare field by field,
// and hand our encoding of pods to the real kubectl, which decodes it into
// Kubernetes' own types.
//
// Objects are plain structs with no hidden state; they are not safe for
// concurrent mutation, and functions here never retain the objects they are
// given. Copy them with meta.DeepCopy.
package core
