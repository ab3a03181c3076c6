package admission

import (
	"context"
	"net/http"
	"testing"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func limitRange(items ...core.LimitRangeItem) *core.LimitRange {
	return &core.LimitRange{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "limits"},
		Spec: core.LimitRangeSpec{Limits: items}}
}

func listerOf(lrs ...*core.LimitRange) LimitRangeLister {
	return LimitRangeListerFunc(func(ns string) []*core.LimitRange {
		if ns != "ns" {
			return nil
		}
		return lrs
	})
}

func TestLimitRangerDefaults(t *testing.T) {
	lr := limitRange(core.LimitRangeItem{Type: core.LimitTypeContainer,
		Default: rl("cpu", "1", "memory", "512Mi"), DefaultRequest: rl("cpu", "500m", "memory", "256Mi")})
	p := pod("ns", "web", container("web", nil, nil), container("side", rl("cpu", "100m"), rl("cpu", "200m")))
	p.Spec.InitContainers = []core.Container{container("setup", rl("cpu", "2", "memory", "1Gi"), rl("cpu", "2", "memory", "1Gi"))}
	l := NewLimitRanger(listerOf(lr))
	require.NoError(t, l.Admit(context.Background(), attrs(Create, "pods", "ns", "web", p)))

	assertRL(t, rl("cpu", "500m", "memory", "256Mi"), p.Spec.Containers[0].Resources.Requests)
	assertRL(t, rl("cpu", "1", "memory", "512Mi"), p.Spec.Containers[0].Resources.Limits)
	assertRL(t, rl("cpu", "100m", "memory", "256Mi"), p.Spec.Containers[1].Resources.Requests, "set values are kept")
	assertRL(t, rl("cpu", "200m", "memory", "512Mi"), p.Spec.Containers[1].Resources.Limits)
	assertRL(t, rl("cpu", "2", "memory", "1Gi"), p.Spec.InitContainers[0].Resources.Limits)
	assert.Equal(t, "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web; "+
		"memory request for container side; memory limit for container side", p.Annotations[LimitRangerAnnotation])

	lr.Spec.Limits[0].Default = rl("ephemeral-storage", "1Gi")
	lr.Spec.Limits[0].DefaultRequest = nil
	require.NoError(t, l.Admit(context.Background(), attrs(Create, "pods", "ns", "web", p)))
	assert.Equal(t, "LimitRanger plugin set: ephemeral-storage limit for container web; ephemeral-storage limit for container side; "+
		"ephemeral-storage limit for init container setup", p.Annotations[LimitRangerAnnotation])
}

func TestLimitRangerDefaultsSkipped(t *testing.T) {
	lr := limitRange(core.LimitRangeItem{Type: core.LimitTypeContainer, Default: rl("cpu", "1")})
	l := NewLimitRanger(listerOf(lr))
	for _, a := range []*Attributes{
		attrs(Update, "pods", "ns", "web", pod("ns", "web", container("web", nil, nil))),
		attrs(Create, "pods", "other", "web", pod("other", "web", container("web", nil, nil))),
		{Operation: Create, Resource: gvr("pods"), Subresource: "binding", Namespace: "ns", Object: pod("ns", "web", container("web", nil, nil))},
	} {
		require.NoError(t, l.Admit(context.Background(), a))
		assert.Nil(t, a.Object.(*core.Pod).Spec.Containers[0].Resources.Limits)
		assert.Empty(t, a.Object.GetObjectMeta().Annotations)
	}
}

func TestLimitRangerValidatePod(t *testing.T) {
	ctr := func(item core.LimitRangeItem) *core.LimitRange {
		item.Type = core.LimitTypeContainer
		return limitRange(item)
	}
	podLR := func(item core.LimitRangeItem) *core.LimitRange {
		item.Type = core.LimitTypePod
		return limitRange(item)
	}
	tests := []struct {
		name    string
		lr      *core.LimitRange
		pod     *core.Pod
		wantMsg string
	}{
		{"within bounds", ctr(core.LimitRangeItem{Min: rl("cpu", "100m"), Max: rl("cpu", "1")}),
			pod("ns", "web", container("web", rl("cpu", "200m"), rl("cpu", "1"))), ""},
		{"limit over max", ctr(core.LimitRangeItem{Max: rl("cpu", "1")}),
			pod("ns", "web", container("web", rl("cpu", "1"), rl("cpu", "2"))),
			"maximum cpu usage per Container is 1, but limit is 2"},
		{"no limit under max", ctr(core.LimitRangeItem{Max: rl("cpu", "1")}),
			pod("ns", "web", container("web", rl("cpu", "1"), nil)),
			"maximum cpu usage per Container is 1.  No limit is specified"},
		{"request over max", ctr(core.LimitRangeItem{Max: rl("memory", "1Gi")}),
			pod("ns", "web", container("web", rl("memory", "2Gi"), rl("memory", "1Gi"))),
			"maximum memory usage per Container is 1Gi, but request is 2Gi"},
		{"request under min", ctr(core.LimitRangeItem{Min: rl("cpu", "100m")}),
			pod("ns", "web", container("web", rl("cpu", "50m"), nil)),
			"minimum cpu usage per Container is 100m, but request is 50m"},
		{"no request over min", ctr(core.LimitRangeItem{Min: rl("cpu", "100m")}),
			pod("ns", "web", container("web", nil, nil)),
			"minimum cpu usage per Container is 100m.  No request is specified"},
		{"limit under min", ctr(core.LimitRangeItem{Min: rl("cpu", "100m")}),
			pod("ns", "web", container("web", rl("cpu", "200m"), rl("cpu", "50m"))),
			"minimum cpu usage per Container is 100m, but limit is 50m"},
		{"init container checked", ctr(core.LimitRangeItem{Max: rl("cpu", "1")}),
			func() *core.Pod {
				p := pod("ns", "web", container("web", rl("cpu", "1"), rl("cpu", "1")))
				p.Spec.InitContainers = []core.Container{container("init", rl("cpu", "3"), rl("cpu", "3"))}
				return p
			}(),
			"maximum cpu usage per Container is 1, but limit is 3"},
		{"ratio exceeded", ctr(core.LimitRangeItem{MaxLimitRequestRatio: rl("cpu", "2")}),
			pod("ns", "web", container("web", rl("cpu", "100m"), rl("cpu", "500m"))),
			"cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000"},
		{"ratio within", ctr(core.LimitRangeItem{MaxLimitRequestRatio: rl("cpu", "2")}),
			pod("ns", "web", container("web", rl("cpu", "250m"), rl("cpu", "500m"))), ""},
		{"ratio without request", ctr(core.LimitRangeItem{MaxLimitRequestRatio: rl("memory", "2")}),
			pod("ns", "web", container("web", nil, rl("memory", "1Gi"))),
			"memory max limit to request ratio per Container is 2, but no request is specified or request is 0"},
		{"ratio without limit", ctr(core.LimitRangeItem{MaxLimitRequestRatio: rl("memory", "2")}),
			pod("ns", "web", container("web", rl("memory", "1Gi"), nil)),
			"memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0"},
		{"pod max over the sum", podLR(core.LimitRangeItem{Max: rl("memory", "1Gi")}),
			pod("ns", "web", container("a", rl("memory", "768Mi"), rl("memory", "768Mi")),
				container("b", rl("memory", "768Mi"), rl("memory", "768Mi"))),
			"maximum memory usage per Pod is 1Gi, but limit is 1536Mi"},
		{"pod min", podLR(core.LimitRangeItem{Min: rl("cpu", "1")}),
			pod("ns", "web", container("a", rl("cpu", "300m"), nil), container("b", rl("cpu", "300m"), nil)),
			"minimum cpu usage per Pod is 1, but request is 600m"},
		{"several violations", ctr(core.LimitRangeItem{Max: rl("cpu", "1", "memory", "1Gi")}),
			pod("ns", "web", container("web", rl("cpu", "2", "memory", "2Gi"), rl("cpu", "2", "memory", "2Gi"))),
			"[maximum cpu usage per Container is 1, but limit is 2, maximum memory usage per Container is 1Gi, but limit is 2Gi]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLimitRanger(listerOf(tt.lr))
			err := l.Validate(context.Background(), attrs(Create, "pods", "ns", "web", tt.pod))
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, http.StatusForbidden, `pods "web" is forbidden: `+tt.wantMsg)
			require.NoError(t, l.Validate(context.Background(), attrs(Update, "pods", "ns", "web", tt.pod)),
				"pod updates are not checked")
		})
	}
}

func TestLimitRangerValidateClaim(t *testing.T) {
	lr := limitRange(core.LimitRangeItem{Type: core.LimitTypePersistentVolumeClaim,
		Min: rl("storage", "1Gi"), Max: rl("storage", "10Gi")})
	claim := func(requests core.ResourceList) *core.PersistentVolumeClaim {
		return &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "data"},
			Spec: core.PersistentVolumeClaimSpec{Resources: core.VolumeResourceRequirements{Requests: requests}}}
	}
	tests := []struct {
		name    string
		op      Operation
		pvc     *core.PersistentVolumeClaim
		wantMsg string
	}{
		{"within", Create, claim(rl("storage", "5Gi")), ""},
		{"too small", Create, claim(rl("storage", "500Mi")),
			"minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"},
		{"too large on update", Update, claim(rl("storage", "20Gi")),
			"maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi"},
		{"no request", Create, claim(nil),
			"[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, " +
				"maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]"},
	}
	l := NewLimitRanger(listerOf(lr))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := l.Validate(context.Background(), attrs(tt.op, "persistentvolumeclaims", "ns", "data", tt.pvc))
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, http.StatusForbidden, `persistentvolumeclaims "data" is forbidden: `+tt.wantMsg)
		})
	}
}

func TestLimitRangerChain(t *testing.T) {
	lr := limitRange(core.LimitRangeItem{Type: core.LimitTypeContainer, Max: rl("cpu", "2"),
		Default: rl("cpu", "1"), DefaultRequest: rl("cpu", "500m")})
	l := NewLimitRanger(listerOf(lr))
	c := &Chain{Mutators: []Mutator{l}, Validators: []Validator{l}}
	a := attrs(Create, "pods", "ns", "web", pod("ns", "web", container("web", nil, nil)))
	require.NoError(t, c.Admit(context.Background(), a))
	require.NoError(t, c.Validate(context.Background(), a), "the defaults satisfy the max")

	a = attrs(Create, "pods", "ns", "big", pod("ns", "big", container("web", rl("cpu", "3"), rl("cpu", "3"))))
	require.NoError(t, c.Admit(context.Background(), a))
	err := c.Validate(context.Background(), a)
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, LimitRangerName, rej.Plugin)
	requireStatus(t, err, http.StatusForbidden, `pods "big" is forbidden: maximum cpu usage per Container is 2, but limit is 3`)

	err = l.Validate(context.Background(), attrs(Create, "pods", "ns", "x", &core.ConfigMap{}))
	requireStatus(t, err, http.StatusBadRequest, "resource pods was marked with kind Pod but was unable to be converted: admission: object of the wrong type for its resource")
}

// An in-place resize (pods/resize) is held to the limits, not defaulted;
// other subresources and ordinary updates pass.
func TestLimitRangerResize(t *testing.T) {
	lr := limitRange(core.LimitRangeItem{Type: core.LimitTypeContainer, Max: rl("cpu", "1", "memory", "1Gi"),
		Default: rl("cpu", "500m", "memory", "256Mi")})
	l := NewLimitRanger(listerOf(lr))
	resize := func(p *core.Pod) *Attributes {
		return &Attributes{Operation: Update, Resource: gvr("pods"), Subresource: "resize", Namespace: "ns", Name: p.Name,
			Object: p, OldObject: pod("ns", p.Name, container("web", rl("cpu", "500m"), rl("cpu", "500m")))}
	}
	cases := []struct {
		name string
		a    *Attributes
		want string // the refusal, empty for none
	}{
		{"resize within the limits", resize(pod("ns", "web", container("web", rl("cpu", "800m"), rl("cpu", "800m", "memory", "512Mi")))), ""},
		{"resize over the max", resize(pod("ns", "web", container("web", rl("cpu", "2"), rl("cpu", "2", "memory", "512Mi")))),
			`pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2`},
		{"ordinary update over the max", attrs(Update, "pods", "ns", "web", pod("ns", "web", container("web", rl("cpu", "2"), rl("cpu", "2")))), ""},
		{"status update over the max", &Attributes{Operation: Update, Resource: gvr("pods"), Subresource: "status", Namespace: "ns", Name: "web",
			Object: pod("ns", "web", container("web", rl("cpu", "2"), rl("cpu", "2")))}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.a.Object.(*core.Pod)
			before := p.Spec.Containers[0].Resources.Limits.DeepCopy()
			require.NoError(t, l.Admit(context.Background(), tc.a))
			assertRL(t, before, p.Spec.Containers[0].Resources.Limits, "never defaulted")
			err := l.Validate(context.Background(), tc.a)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, http.StatusForbidden, tc.want)
		})
	}
}
