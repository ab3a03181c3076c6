package policy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func intOrStr(v meta.IntOrString) *meta.IntOrString { return &v }

func validPDB() *PodDisruptionBudget {
	return &PodDisruptionBudget{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: PodDisruptionBudgetSpec{MinAvailable: intOrStr(meta.FromInt(2)),
			Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
}

func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestValidatePodDisruptionBudget(t *testing.T) {
	policy := func(p UnhealthyPodEvictionPolicyType) *UnhealthyPodEvictionPolicyType { return &p }
	tests := []struct {
		name   string
		change func(*PodDisruptionBudget)
		want   []string
	}{
		{"valid minAvailable", func(*PodDisruptionBudget) {}, nil},
		{"valid maxUnavailable percent", func(p *PodDisruptionBudget) {
			p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, intOrStr(meta.FromString("50%"))
		}, nil},
		{"neither bound is valid", func(p *PodDisruptionBudget) { p.Spec.MinAvailable = nil }, nil},
		{"empty selector is valid (every pod)", func(p *PodDisruptionBudget) { p.Spec.Selector = &meta.LabelSelector{} }, nil},
		{"both bounds", func(p *PodDisruptionBudget) { p.Spec.MaxUnavailable = intOrStr(meta.FromInt(1)) },
			[]string{"spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:2, MaxUnavailable:1}: minAvailable and maxUnavailable cannot be both set"}},
		{"negative minAvailable", func(p *PodDisruptionBudget) { p.Spec.MinAvailable = intOrStr(meta.FromInt(-1)) },
			[]string{"spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"}},
		{"bad percentage", func(p *PodDisruptionBudget) { p.Spec.MinAvailable = intOrStr(meta.FromString("half")) },
			[]string{`spec.minAvailable: Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`}},
		{"above 100%", func(p *PodDisruptionBudget) {
			p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, intOrStr(meta.FromString("101%"))
		}, []string{`spec.maxUnavailable: Invalid value: "101%": must not be greater than 100%`}},
		{"bad selector", func(p *PodDisruptionBudget) {
			p.Spec.Selector = &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "app", Operator: meta.LabelSelectorOpIn}}}
		}, []string{"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{"unknown policy", func(p *PodDisruptionBudget) { p.Spec.UnhealthyPodEvictionPolicy = policy("Sometimes") },
			[]string{`spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`}},
		{"known policy", func(p *PodDisruptionBudget) { p.Spec.UnhealthyPodEvictionPolicy = policy(AlwaysAllow) }, nil},
		{"bad name", func(p *PodDisruptionBudget) { p.Name = "Web_1" }, []string{
			"metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPDB()
			tt.change(p)
			assert.Equal(t, tt.want, messages(ValidatePodDisruptionBudget(p)))
		})
	}
}

func TestValidatePodDisruptionBudgetUpdate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*PodDisruptionBudget)
		want   []string
	}{
		{"spec is mutable", func(p *PodDisruptionBudget) { p.Spec.MinAvailable = intOrStr(meta.FromString("80%")) }, nil},
		{"status counts", func(p *PodDisruptionBudget) {
			p.Status = PodDisruptionBudgetStatus{DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
				DisruptedPods: map[string]meta.Time{"web-1": meta.Now()}}
		}, nil},
		{"negative disruptionsAllowed", func(p *PodDisruptionBudget) { p.Status.DisruptionsAllowed = -1 },
			[]string{"status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0"}},
		{"condition without reason", func(p *PodDisruptionBudget) {
			p.Status.Conditions = []meta.Condition{{Type: DisruptionAllowedCondition, Status: "Maybe"}}
		}, []string{
			`status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
			"status.conditions[0].lastTransitionTime: Required value: must be set",
			"status.conditions[0].reason: Required value: must be set",
		}},
		{"renamed", func(p *PodDisruptionBudget) { p.Name = "other" },
			[]string{`metadata.name: Invalid value: "other": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validPDB()
			p := meta.DeepCopy(old)
			tt.change(p)
			assert.Equal(t, tt.want, messages(ValidatePodDisruptionBudgetUpdate(p, old)))
		})
	}
}

// FuzzValidate feeds arbitrary bounds to the validation: it must never
// panic, and what it accepts must resolve against any pod count.
func FuzzValidate(f *testing.F) {
	f.Add("50%", int32(0), true)
	f.Add("", int32(2), false)
	f.Add("101%", int32(-1), true)
	f.Fuzz(func(t *testing.T, s string, n int32, isString bool) {
		v := meta.IntOrString{IsString: isString, StrVal: s, IntVal: n}
		p := validPDB()
		p.Spec.MinAvailable = &v
		if len(ValidatePodDisruptionBudget(p)) == 0 {
			if _, err := v.ScaledValue(7, true); err != nil {
				t.Fatalf("accepted %v but cannot scale it: %v", v, err)
			}
		}
	})
}
