package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// caseOf is one validation table row over an object of type T.
type caseOf[T any] struct {
	name   string
	mutate func(*T)
	want   []string
}

func runCases[T any](t *testing.T, valid func() *T, validate func(*T) field.ErrorList, cases []caseOf[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := valid()
			tc.mutate(obj)
			assert.Equal(t, tc.want, errStrings(validate(obj)))
		})
	}
}

func validNode() *Node {
	return &Node{
		ObjectMeta: meta.ObjectMeta{Name: "node-1"},
		Spec:       NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"}},
		Status: NodeStatus{
			Capacity:  ResourceList{ResourceCPU: resource.MustParse("4"), ResourcePods: resource.MustParse("110")},
			Addresses: []NodeAddress{{Type: NodeInternalIP, Address: "172.18.0.2"}},
		},
	}
}

func TestValidateNode(t *testing.T) {
	runCases(t, validNode, ValidateNode, []caseOf[Node]{
		{"valid", func(*Node) {}, nil},
		{"bad CIDR", func(n *Node) { n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.1.0", nil },
			[]string{`spec.podCIDR: Invalid value: "10.244.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{"taint effect", func(n *Node) { n.Spec.Taints = []Taint{{Key: "k", Effect: "Evict"}} },
			[]string{`spec.taints[0].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{"taint effect required", func(n *Node) { n.Spec.Taints = []Taint{{Key: "k"}} },
			[]string{`spec.taints[0].effect: Required value`}},
		{"duplicate taint", func(n *Node) {
			n.Spec.Taints = []Taint{{Key: "k", Effect: TaintEffectNoSchedule}, {Key: "k", Value: "v", Effect: TaintEffectNoSchedule}}
		}, []string{`spec.taints[1]: Duplicate value: "k=v:NoSchedule": taints must be unique by key and effect pair`}},
		{"negative capacity", func(n *Node) { n.Status.Capacity[ResourceMemory] = resource.MustParse("-1") },
			[]string{`status.capacity.memory: Invalid value: "-1": must be greater than or equal to 0`}},
		{"legacy resource names are fine", func(n *Node) { n.Status.Capacity["attachable-volumes-csi-x"] = resource.MustParse("39") }, nil},
	})
	t.Run("update", func(t *testing.T) {
		old, n := validNode(), validNode()
		n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.2.0/24", []string{"10.244.2.0/24"}
		n.Spec.Unschedulable = true
		assert.Equal(t, []string{`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`},
			errStrings(ValidateNodeUpdate(n, old)))
	})
}

func validService() *Service {
	svc := &Service{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "demo"},
		Spec: ServiceSpec{
			Selector:  map[string]string{"app": "web"},
			ClusterIP: "10.96.0.20", ClusterIPs: []string{"10.96.0.20"},
			Ports: []ServicePort{{Name: "http", Port: 80, TargetPort: meta.FromString("http")}, {Name: "https", Port: 443}},
		},
	}
	DefaultService(svc)
	return svc
}

func TestValidateService(t *testing.T) {
	runCases(t, validService, ValidateService, []caseOf[Service]{
		{"valid", func(*Service) {}, nil},
		{"name must be DNS-1035", func(s *Service) { s.Name = "1web" },
			[]string{`metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"no ports", func(s *Service) { s.Spec.Ports = nil }, []string{"spec.ports: Required value"}},
		{"headless without ports", func(s *Service) {
			s.Spec.Ports, s.Spec.ClusterIP, s.Spec.ClusterIPs = nil, ClusterIPNone, []string{ClusterIPNone}
		}, nil},
		{"port name required with several", func(s *Service) { s.Spec.Ports[1].Name = "" },
			[]string{"spec.ports[1].name: Required value"}},
		{"duplicate port name", func(s *Service) { s.Spec.Ports[1].Name = "http" },
			[]string{`spec.ports[1].name: Duplicate value: "http"`}},
		{"bad port", func(s *Service) { s.Spec.Ports[0].Port = 0 },
			[]string{`spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`}},
		{"bad target port name", func(s *Service) { s.Spec.Ports[0].TargetPort = meta.FromString("http_x") },
			[]string{`spec.ports[0].targetPort: Invalid value: "http_x": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`}},
		{"node port on cluster IP", func(s *Service) { s.Spec.Ports[0].NodePort = 30080 },
			[]string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"}},
		{"type", func(s *Service) { s.Spec.Type = "Internal" },
			[]string{`spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}},
		{"session affinity", func(s *Service) { s.Spec.SessionAffinity = "Sticky" },
			[]string{`spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"`}},
		{"external traffic policy on cluster IP", func(s *Service) { s.Spec.ExternalTrafficPolicy = ServiceExternalTrafficPolicyLocal },
			[]string{"spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for externally-accessible services"}},
		{"external traffic policy on cluster IP with external IPs", func(s *Service) {
			s.Spec.ExternalIPs, s.Spec.ExternalTrafficPolicy = []string{"192.0.2.7"}, ServiceExternalTrafficPolicyLocal
		}, nil},
		{"external traffic policy required when externally accessible", func(s *Service) { s.Spec.Type = ServiceTypeNodePort },
			[]string{"spec.externalTrafficPolicy: Required value"}},
		{"bad cluster IP", func(s *Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0", []string{"10.96.0"} },
			[]string{`spec.clusterIP: Invalid value: "10.96.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
				`spec.clusterIPs[0]: Invalid value: "10.96.0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"kubelet port on load balancer", func(s *Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = ServiceTypeLoadBalancer, ServiceExternalTrafficPolicyCluster
			s.Spec.Ports[1].Port = 10250
		}, []string{"spec.ports[1]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet"}},
		{"loopback external IP", func(s *Service) {
			s.Spec.ExternalIPs, s.Spec.ExternalTrafficPolicy = []string{"127.0.0.1"}, ServiceExternalTrafficPolicyCluster
		},
			[]string{`spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`}},
		{"external name", func(s *Service) {
			s.Spec = ServiceSpec{Type: ServiceTypeExternalName, ExternalName: "db.example.com.", SessionAffinity: ServiceAffinityNone}
		}, nil},
		{"external name required", func(s *Service) {
			s.Spec = ServiceSpec{Type: ServiceTypeExternalName, SessionAffinity: ServiceAffinityNone}
		}, []string{"spec.externalName: Required value"}},
	})
	t.Run("cluster IP immutable", func(t *testing.T) {
		old, s := validService(), validService()
		s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0.21", []string{"10.96.0.21"}
		assert.Equal(t, []string{`spec.clusterIP: Invalid value: "10.96.0.21": field is immutable`},
			errStrings(ValidateServiceUpdate(s, old)))
	})
}

func validEndpoints() *Endpoints {
	return &Endpoints{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "demo"},
		Subsets: []EndpointSubset{{
			Addresses: []EndpointAddress{{IP: "10.244.1.5", NodeName: ptr("node-1")}},
			Ports:     []EndpointPort{{Name: "http", Port: 8080, Protocol: ProtocolTCP}},
		}},
	}
}

func TestValidateEndpoints(t *testing.T) {
	runCases(t, validEndpoints, ValidateEndpoints, []caseOf[Endpoints]{
		{"valid", func(*Endpoints) {}, nil},
		{"no addresses", func(e *Endpoints) { e.Subsets[0].Addresses = nil },
			[]string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"}},
		{"loopback", func(e *Endpoints) { e.Subsets[0].Addresses[0].IP = "127.0.0.1" },
			[]string{`subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`}},
		{"bad IP", func(e *Endpoints) { e.Subsets[0].Addresses[0].IP = "pod-1" },
			[]string{`subsets[0].addresses[0].ip: Invalid value: "pod-1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"port protocol", func(e *Endpoints) { e.Subsets[0].Ports[0].Protocol = "" },
			[]string{"subsets[0].ports[0].protocol: Required value"}},
	})
}

func TestValidateSecretAndConfigMap(t *testing.T) {
	valid := func() *Secret {
		return &Secret{ObjectMeta: meta.ObjectMeta{Name: "s", Namespace: "demo"}, Type: SecretTypeOpaque,
			Data: map[string][]byte{"user.name": []byte("admin")}}
	}
	runCases(t, valid, ValidateSecret, []caseOf[Secret]{
		{"valid", func(*Secret) {}, nil},
		{"bad key", func(s *Secret) { s.Data["a/b"] = nil },
			[]string{`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`}},
		{"dot-dot key", func(s *Secret) { s.Data[".."] = nil }, []string{`data[..]: Invalid value: "..": must not be '..'`}},
		{"too large", func(s *Secret) { s.Data["big"] = make([]byte, MaxSecretSize) },
			[]string{"data: Too long: may not be more than 1048576 bytes"}},
		{"tls keys", func(s *Secret) { s.Type = SecretTypeTLS },
			[]string{"data[tls.crt]: Required value", "data[tls.key]: Required value"}},
		{"service account token", func(s *Secret) { s.Type = SecretTypeServiceAccountToken },
			[]string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
	})
	t.Run("immutable secret", func(t *testing.T) {
		old, s := valid(), valid()
		old.Immutable, s.Immutable = ptr(true), ptr(true)
		s.Data["user.name"] = []byte("root")
		assert.Equal(t, []string{"data: Forbidden: field is immutable when `immutable` is set"}, errStrings(ValidateSecretUpdate(s, old)))
		s = valid()
		s.Type = SecretTypeBasicAuth
		s.Data = map[string][]byte{"username": []byte("a")}
		assert.Equal(t, []string{
			`type: Invalid value: "kubernetes.io/basic-auth": field is immutable`,
			"immutable: Forbidden: field is immutable when `immutable` is set",
			"data: Forbidden: field is immutable when `immutable` is set",
		}, errStrings(ValidateSecretUpdate(s, old)))
	})
	t.Run("config map", func(t *testing.T) {
		cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "demo"},
			Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"a": {1}}}
		assert.Equal(t, []string{`binaryData[a]: Invalid value: "a": duplicate of key present in data`}, errStrings(ValidateConfigMap(cm)))
		cm.BinaryData = nil
		cm.Data["big"] = strings.Repeat("x", MaxSecretSize)
		assert.Equal(t, []string{"data: Too long: may not be more than 1048576 bytes"}, errStrings(ValidateConfigMap(cm)))
	})
}

func TestValidateNamespaceBindingEvent(t *testing.T) {
	ns := &Namespace{ObjectMeta: meta.ObjectMeta{Name: "Demo"}}
	assert.Equal(t, []string{`metadata.name: Invalid value: "Demo": ` + dns1123LabelMsg}, errStrings(ValidateNamespace(ns)))

	old := &Namespace{ObjectMeta: meta.ObjectMeta{Name: "demo"}}
	DefaultNamespace(old)
	nsNew := meta.DeepCopy(*old)
	nsNew.Spec.Finalizers = nil
	assert.Empty(t, ValidateNamespaceUpdate(&nsNew, old))
	nsNew.Spec.Finalizers = []FinalizerName{"example.com/a b"}
	assert.Equal(t, []string{`spec.finalizers[0]: Invalid value: "example.com/a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		errStrings(ValidateNamespaceFinalizeUpdate(&nsNew, old)))

	b := &Binding{ObjectMeta: meta.ObjectMeta{Name: "p", Namespace: "demo"}, Target: ObjectReference{Kind: "Pod"}}
	assert.Equal(t, []string{
		`target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`,
		"target.name: Required value",
	}, errStrings(ValidateBinding(b)))

	ev := &Event{ObjectMeta: meta.ObjectMeta{Name: "e", Namespace: "demo"}, Type: "Info",
		InvolvedObject: ObjectReference{Kind: "Pod", Namespace: "other", Name: "p"}, Reason: strings.Repeat("r", 129)}
	assert.Equal(t, []string{
		`involvedObject.namespace: Invalid value: "other": does not match event.namespace`,
	}, errStrings(ValidateEvent(ev)), "old-style events only need matching namespaces")
	ev.InvolvedObject = ObjectReference{Kind: "Node", Name: "n1"}
	ev.Namespace = NamespaceDefault
	assert.Empty(t, ValidateEvent(ev), "events about cluster-scoped objects live in default")

	ev.EventTime = meta.NowMicro()
	ev.Namespace = "demo"
	assert.Equal(t, []string{
		`involvedObject.namespace: Invalid value: "": does not match event.namespace`,
		"reportingComponent: Required value",
		// Kubernetes also checks the empty name's syntax, twice over.
		`reportingComponent: Invalid value: "": name part must be non-empty`,
		`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		"reportingInstance: Required value",
		"action: Required value",
		`reason: Invalid value: "": can have at most 128 characters`,
	}, errStrings(ValidateEvent(ev)))
}

func TestValidateQuotaAndLimits(t *testing.T) {
	q := &ResourceQuota{ObjectMeta: meta.ObjectMeta{Name: "q", Namespace: "demo"}, Spec: ResourceQuotaSpec{
		Hard:   ResourceList{ResourcePods: resource.MustParse("1500m"), "widgets": resource.MustParse("1"), "count/deployments.apps": resource.MustParse("5")},
		Scopes: []ResourceQuotaScope{"Cheap"},
	}}
	assert.Equal(t, []string{
		`spec.hard[pods]: Invalid value: "1500m": must be an integer`,
		`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified`,
		`spec.scopes[0]: Unsupported value: "Cheap": supported values: "BestEffort", "CrossNamespacePodAffinity", "NotBestEffort", "NotTerminating", "PriorityClass", "Terminating", "VolumeAttributesClass"`,
	}, errStrings(ValidateResourceQuota(q)))

	lr := &LimitRange{ObjectMeta: meta.ObjectMeta{Name: "l", Namespace: "demo"}, Spec: LimitRangeSpec{Limits: []LimitRangeItem{
		{Type: LimitTypeContainer,
			Min:                  ResourceList{ResourceCPU: resource.MustParse("2")},
			Max:                  ResourceList{ResourceCPU: resource.MustParse("1")},
			MaxLimitRequestRatio: ResourceList{ResourceMemory: resource.MustParse("500m")}},
		{Type: LimitTypePod, Default: ResourceList{ResourceCPU: resource.MustParse("1")}},
		{Type: LimitTypePersistentVolumeClaim},
		{Type: LimitTypePod},
	}}}
	assert.Equal(t, []string{
		`spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`,
		`spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1`,
		"spec.limits[1].default: Forbidden: may not be specified when `type` is 'Pod'",
		"spec.limits[2].limits: Required value: either minimum or maximum storage value is required, but neither was provided",
		`spec.limits[3].type: Duplicate value: "Pod"`,
	}, errStrings(ValidateLimitRange(lr)))
}

func TestValidateStorage(t *testing.T) {
	pv := &PersistentVolume{ObjectMeta: meta.ObjectMeta{Name: "pv1"}, Spec: PersistentVolumeSpec{
		Capacity:               ResourceList{ResourceStorage: resource.MustParse("1Gi"), ResourceCPU: resource.MustParse("1")},
		PersistentVolumeSource: PersistentVolumeSource{Local: &LocalVolumeSource{Path: "/mnt/../etc"}},
	}}
	DefaultPersistentVolume(pv)
	assert.Equal(t, []string{
		"spec.accessModes: Required value",
		`spec.capacity: Unsupported value: "cpu,storage": supported values: "storage"`,
		`spec.local.path: Invalid value: "/mnt/../etc": must not contain '..'`,
		"metadata.annotations: Required value: Local volume requires node affinity",
	}, errStrings(ValidatePersistentVolume(pv)))

	pv.Spec.Capacity = ResourceList{ResourceStorage: resource.MustParse("1Gi")}
	pv.Spec.AccessModes = []PersistentVolumeAccessMode{ReadWriteOnce}
	pv.Spec.Local = nil
	assert.Equal(t, []string{"spec: Required value: must specify a volume type"}, errStrings(ValidatePersistentVolume(pv)))

	pvc := &PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Name: "c", Namespace: "demo"}}
	DefaultPersistentVolumeClaim(pvc)
	assert.Equal(t, []string{
		"spec.accessModes: Required value: at least 1 access mode is required",
		"spec.resources[storage]: Required value",
	}, errStrings(ValidatePersistentVolumeClaim(pvc)))

	pvc.Spec.AccessModes = []PersistentVolumeAccessMode{ReadWriteOnce}
	pvc.Spec.Resources.Requests = ResourceList{ResourceStorage: resource.MustParse("1Gi")}
	bound := meta.DeepCopy(*pvc)
	bound.Spec.VolumeName = "pv1"
	assert.Empty(t, ValidatePersistentVolumeClaimUpdate(&bound, pvc), "volumeName may be set once")
	bound.Status.Phase = ClaimBound
	grown := meta.DeepCopy(bound)
	grown.Spec.Resources.Requests[ResourceStorage] = resource.MustParse("2Gi")
	assert.Empty(t, ValidatePersistentVolumeClaimUpdate(&grown, &bound), "a bound claim may grow")
	shrunk := meta.DeepCopy(bound)
	shrunk.Spec.Resources.Requests[ResourceStorage] = resource.MustParse("512Mi")
	assert.Equal(t, []string{"spec.resources.requests.storage: Forbidden: field can not be less than previous value"},
		errStrings(ValidatePersistentVolumeClaimUpdate(&shrunk, &bound)))
	moved := meta.DeepCopy(bound)
	moved.Spec.VolumeName = "pv2"
	assert.Equal(t, []string{"spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"},
		errStrings(ValidatePersistentVolumeClaimUpdate(&moved, &bound)))

	// The default class may be given to an unbound claim that has none
	// (retroactively), never changed or given to a bound one.
	classless := meta.DeepCopy(*pvc)
	withClass := meta.DeepCopy(classless)
	local := "local-path"
	withClass.Spec.StorageClassName = &local
	assert.Empty(t, ValidatePersistentVolumeClaimUpdate(&withClass, &classless), "unbound, no class: the default may be set")
	other := meta.DeepCopy(withClass)
	fast := "fast"
	other.Spec.StorageClassName = &fast
	assert.Equal(t, []string{"spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"},
		errStrings(ValidatePersistentVolumeClaimUpdate(&other, &withClass)), "a class cannot change")
	boundClassless := meta.DeepCopy(bound)
	boundWithClass := meta.DeepCopy(bound)
	boundWithClass.Spec.StorageClassName = &local
	assert.Len(t, ValidatePersistentVolumeClaimUpdate(&boundWithClass, &boundClassless), 1, "a bound claim keeps no class")
}
