package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/certificates"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// pcrSources is a NodeGetter and PodCertificateSources over maps.
type pcrSources struct {
	nodeMap
	pods map[string]*core.Pod
	sas  map[string]*core.ServiceAccount
}

func (s pcrSources) GetPod(_ context.Context, ns, name string) (*core.Pod, error) {
	if p, ok := s.pods[ns+"/"+name]; ok {
		return p, nil
	}
	return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "pods"}, name)
}

func (s pcrSources) GetServiceAccount(_ context.Context, ns, name string) (*core.ServiceAccount, error) {
	if sa, ok := s.sas[ns+"/"+name]; ok {
		return sa, nil
	}
	return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "serviceaccounts"}, name)
}

func TestNodeRestrictionPodCertificateRequests(t *testing.T) {
	pod := func(mut ...func(*core.Pod)) *core.Pod {
		p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "ns", UID: "pod-uid"},
			Spec: core.PodSpec{NodeName: "n1", ServiceAccountName: "default", Volumes: []core.Volume{{Name: "tls",
				VolumeSource: core.VolumeSource{Projected: &core.ProjectedVolumeSource{Sources: []core.VolumeProjection{
					{PodCertificate: &core.PodCertificateProjection{SignerName: "example.com/s"}}}}}}}}}
		for _, m := range mut {
			m(p)
		}
		return p
	}
	req := func(mut ...func(*certificates.PodCertificateRequest)) *certificates.PodCertificateRequest {
		r := &certificates.PodCertificateRequest{ObjectMeta: meta.ObjectMeta{Name: "req-1", Namespace: "ns"},
			Spec: certificates.PodCertificateRequestSpec{SignerName: "example.com/s", PodName: "web", PodUID: "pod-uid",
				ServiceAccountName: "default", ServiceAccountUID: "sa-uid", NodeName: "n1", NodeUID: "n1-uid"}}
		for _, m := range mut {
			m(r)
		}
		return r
	}
	src := func(p *core.Pod) pcrSources {
		return pcrSources{nodeMap: nodeMap{"n1": testNode("n1", nil)}, pods: map[string]*core.Pod{"ns/web": p},
			sas: map[string]*core.ServiceAccount{"ns/default": {ObjectMeta: meta.ObjectMeta{Name: "default", UID: "sa-uid"}}}}
	}
	attrs := func(op Operation, r *certificates.PodCertificateRequest) *Attributes {
		return &Attributes{Operation: op, Resource: meta.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "podcertificaterequests"},
			Namespace: "ns", Name: r.Name, Object: r, User: node1User}
	}
	tests := []struct {
		name    string
		pod     *core.Pod
		a       *Attributes
		want    string // substring of the error, "" to admit
		retried bool   // a mismatch a retry may fix: not Forbidden
	}{
		{name: "own pod", pod: pod(), a: attrs(Create, req())},
		{name: "another node's name", pod: pod(), a: attrs(Create, req(func(r *certificates.PodCertificateRequest) { r.Spec.NodeName = "n2" })),
			want: `which is not the requesting node "n1"`},
		{name: "pod on another node", pod: pod(func(p *core.Pod) { p.Spec.NodeName = "n2" }), a: attrs(Create, req()),
			want: `is not running on node "n1"`},
		{name: "other service account", pod: pod(), a: attrs(Create, req(func(r *certificates.PodCertificateRequest) { r.Spec.ServiceAccountName = "admin" })),
			want: "contains serviceAccountName"},
		{name: "signer the pod does not use", pod: pod(), a: attrs(Create, req(func(r *certificates.PodCertificateRequest) { r.Spec.SignerName = "evil.com/s" })),
			want: "has no podCertificate volume source"},
		{name: "mirror pod", pod: pod(func(p *core.Pod) { p.Annotations = map[string]string{core.AnnotationMirrorPod: "x"} }), a: attrs(Create, req()),
			want: "is a mirror pod"},
		{name: "update", pod: pod(), a: attrs(Update, req()), want: "unexpected operation"},
		{name: "stale pod UID", pod: pod(), a: attrs(Create, req(func(r *certificates.PodCertificateRequest) { r.Spec.PodUID = "old" })),
			want: "differs from running pod", retried: true},
		{name: "stale node UID", pod: pod(), a: attrs(Create, req(func(r *certificates.PodCertificateRequest) { r.Spec.NodeUID = "old" })),
			want: "inconsistent with the running node", retried: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewNodeRestriction(src(tt.pod)).Validate(context.Background(), tt.a)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tt.want)
				assert.Equal(t, !tt.retried, apierrors.IsForbidden(err))
			}
		})
	}
	err := NewNodeRestriction(nodeMap{"n1": testNode("n1", nil)}).Validate(context.Background(), attrs(Create, req()))
	assert.True(t, apierrors.IsForbidden(err), "without pod sources nothing is admitted: %v", err)
}
