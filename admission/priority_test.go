package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// classes is an in-memory PriorityClassLister.
type classes struct {
	list []*scheduling.PriorityClass
	err  error
}

func (c *classes) GetPriorityClass(_ context.Context, name string) (*scheduling.PriorityClass, error) {
	if c.err != nil {
		return nil, c.err
	}
	for _, pc := range c.list {
		if pc.Name == name {
			return pc, nil
		}
	}
	return nil, apierrors.NewNotFound(priorityClassesResource, name)
}

func (c *classes) ListPriorityClasses(context.Context) ([]*scheduling.PriorityClass, error) {
	return c.list, c.err
}

func class(name string, value int32, def bool, policy core.PreemptionPolicy) *scheduling.PriorityClass {
	pc := &scheduling.PriorityClass{ObjectMeta: meta.ObjectMeta{Name: name}, Value: value, GlobalDefault: def}
	if policy != "" {
		pc.PreemptionPolicy = &policy
	}
	return pc
}

func i32(v int32) *int32 { return &v }

func policyOf(p core.PreemptionPolicy) *core.PreemptionPolicy { return &p }

func TestPriorityAdmitPods(t *testing.T) {
	high := class("high", 1000, false, core.PreemptLowerPriority)
	never := class("batch", 10, false, core.PreemptNever)
	def := class("normal", 100, true, "")
	lowDef := class("low-default", 50, true, core.PreemptNever)
	system := scheduling.SystemPriorityClasses()
	tests := []struct {
		name       string
		classes    []*scheduling.PriorityClass
		className  string
		priority   *int32
		policy     *core.PreemptionPolicy
		wantClass  string
		wantPrio   int32
		wantPolicy core.PreemptionPolicy
		wantCode   int32
		wantMsg    string
	}{
		{name: "named class", classes: []*scheduling.PriorityClass{high, def}, className: "high",
			wantClass: "high", wantPrio: 1000, wantPolicy: core.PreemptLowerPriority},
		{name: "class with Never policy", classes: []*scheduling.PriorityClass{never}, className: "batch",
			wantClass: "batch", wantPrio: 10, wantPolicy: core.PreemptNever},
		{name: "system class", classes: system, className: scheduling.SystemNodeCritical,
			wantClass: scheduling.SystemNodeCritical, wantPrio: 2000001000, wantPolicy: core.PreemptLowerPriority},
		{name: "global default is named in the pod", classes: []*scheduling.PriorityClass{high, def},
			wantClass: "normal", wantPrio: 100, wantPolicy: core.PreemptLowerPriority},
		{name: "two defaults: the lowest wins", classes: []*scheduling.PriorityClass{def, lowDef},
			wantClass: "low-default", wantPrio: 50, wantPolicy: core.PreemptNever},
		{name: "no default class", classes: []*scheduling.PriorityClass{high},
			wantClass: "", wantPrio: 0, wantPolicy: core.PreemptLowerPriority},
		{name: "matching priority is accepted", classes: []*scheduling.PriorityClass{high}, className: "high", priority: i32(1000),
			policy: policyOf(core.PreemptLowerPriority), wantClass: "high", wantPrio: 1000, wantPolicy: core.PreemptLowerPriority},
		{name: "unknown class", classes: []*scheduling.PriorityClass{high}, className: "nope",
			wantCode: http.StatusForbidden, wantMsg: `pods "web" is forbidden: no PriorityClass with name nope was found`},
		{name: "priority differs from the class", classes: []*scheduling.PriorityClass{high}, className: "high", priority: i32(5),
			wantCode: http.StatusForbidden, wantMsg: `pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
		{name: "priority without class or default", priority: i32(7),
			wantCode: http.StatusForbidden, wantMsg: `pods "web" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`},
		{name: "policy differs from the class", classes: []*scheduling.PriorityClass{never}, className: "batch", policy: policyOf(core.PreemptLowerPriority),
			wantCode: http.StatusForbidden, wantMsg: `pods "web" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("ns", "web", container("c", nil, nil))
			p.Spec.PriorityClassName, p.Spec.Priority, p.Spec.PreemptionPolicy = tt.className, tt.priority, tt.policy
			err := NewPriority(&classes{list: tt.classes}).Admit(context.Background(), attrs(Create, "pods", "ns", "web", p))
			if tt.wantCode != 0 {
				requireStatus(t, err, tt.wantCode, tt.wantMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantClass, p.Spec.PriorityClassName)
			require.NotNil(t, p.Spec.Priority)
			assert.Equal(t, tt.wantPrio, *p.Spec.Priority)
			require.NotNil(t, p.Spec.PreemptionPolicy)
			assert.Equal(t, tt.wantPolicy, *p.Spec.PreemptionPolicy)
		})
	}
}

func TestPriorityUpdateAndSkips(t *testing.T) {
	pl := NewPriority(&classes{list: []*scheduling.PriorityClass{class("high", 1000, false, "")}})
	old := pod("ns", "web", container("c", nil, nil))
	old.Spec.PriorityClassName, old.Spec.Priority, old.Spec.PreemptionPolicy = "high", i32(1000), policyOf(core.PreemptLowerPriority)
	cur := pod("ns", "web", container("c", nil, nil))
	cur.Spec.PriorityClassName = "high"
	a := attrs(Update, "pods", "ns", "web", cur)
	a.OldObject = old
	require.NoError(t, pl.Admit(context.Background(), a))
	assert.Equal(t, int32(1000), *cur.Spec.Priority, "kept from the old pod")
	assert.Equal(t, core.PreemptLowerPriority, *cur.Spec.PreemptionPolicy)

	for _, a := range []*Attributes{
		{Operation: Create, Resource: gvr("pods"), Subresource: "binding", Namespace: "ns", Object: pod("ns", "x")},
		attrs(Create, "configmaps", "ns", "x", &core.ConfigMap{}),
		{Operation: Delete, Resource: gvr("pods"), Namespace: "ns", Name: "x"},
	} {
		require.NoError(t, pl.Admit(context.Background(), a))
	}
	bound := pod("ns", "x")
	require.NoError(t, pl.Admit(context.Background(), &Attributes{Operation: Create, Resource: gvr("pods"), Subresource: "status", Object: bound}))
	assert.Nil(t, bound.Spec.Priority, "subresources are left alone")

	err := pl.Admit(context.Background(), attrs(Create, "pods", "ns", "x", &core.ConfigMap{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), ErrWrongType.Error())
}

func TestPriorityLookupFailure(t *testing.T) {
	pl := NewPriority(&classes{err: errors.New("store down")})
	p := pod("ns", "web")
	p.Spec.PriorityClassName = "high"
	requireStatus(t, pl.Admit(context.Background(), attrs(Create, "pods", "ns", "web", p)), http.StatusInternalServerError,
		"Internal error occurred: failed to get PriorityClass with name high: store down")
	requireStatus(t, pl.Admit(context.Background(), attrs(Create, "pods", "ns", "web", pod("ns", "web"))), http.StatusInternalServerError,
		"Internal error occurred: failed to get default priority class: store down")
	assert.Nil(t, p.Spec.Priority, "nothing set on failure")
}

func TestPriorityValidateClasses(t *testing.T) {
	existing := class("normal", 100, true, "")
	pl := NewPriority(&classes{list: []*scheduling.PriorityClass{existing, class("high", 1000, false, "")}})
	pcAttrs := func(op Operation, pc *scheduling.PriorityClass) *Attributes {
		return &Attributes{Operation: op, Resource: meta.GroupVersionResource{Group: scheduling.GroupName, Version: "v1", Resource: "priorityclasses"},
			Name: pc.Name, Object: pc}
	}
	tests := []struct {
		name    string
		a       *Attributes
		wantMsg string
	}{
		{name: "second default on create", a: pcAttrs(Create, class("other", 5, true, "")),
			wantMsg: `priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass normal is already marked as default. Only one default can exist`},
		{name: "another class made default", a: pcAttrs(Update, class("high", 1000, true, "")),
			wantMsg: `priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass normal is already marked as default. Only one default can exist`},
		{name: "the default updated", a: pcAttrs(Update, class("normal", 100, true, ""))},
		{name: "not a default", a: pcAttrs(Create, class("other", 5, false, ""))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pl.Validate(context.Background(), tt.a)
			if tt.wantMsg == "" {
				require.NoError(t, err)
				return
			}
			requireStatus(t, err, http.StatusForbidden, tt.wantMsg)
		})
	}
	require.NoError(t, NewPriority(&classes{}).Validate(context.Background(), pcAttrs(Create, class("first", 1, true, ""))))
}

// A pod naming its class gets the class's priority and preemption policy.
func ExamplePriority() {
	policy := core.PreemptNever
	lister := &classes{list: []*scheduling.PriorityClass{{
		ObjectMeta: meta.ObjectMeta{Name: "batch"}, Value: 10, PreemptionPolicy: &policy}}}
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "job"},
		Spec: core.PodSpec{PriorityClassName: "batch"}}
	a := &Attributes{Operation: Create, Resource: meta.GroupVersionResource{Version: "v1", Resource: "pods"},
		Namespace: "ns", Name: "job", Object: p}
	_ = NewPriority(lister).Admit(context.Background(), a)
	fmt.Println(*p.Spec.Priority, *p.Spec.PreemptionPolicy)
	// Output: 10 Never
}
