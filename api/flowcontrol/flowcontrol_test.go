package flowcontrol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func roundTrip[T any](t *testing.T, file string, validate func(*T) field.ErrorList) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	var v T
	require.NoError(t, json.Unmarshal(data, &v))
	assert.Empty(t, validate(&v))
	out, err := json.Marshal(&v)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(out))
}

// TestGolden: kube-formatted objects decode, validate and encode back to
// the same JSON (nominalConcurrencyShares 0 stays 0).
func TestGolden(t *testing.T) {
	roundTrip(t, "flowschema.json", ValidateFlowSchema)
	roundTrip(t, "prioritylevelconfiguration.json", ValidatePriorityLevelConfiguration)
}

// errStrings renders errs, one string each.
func errStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// assertErrors checks that every want is a prefix of one of errs and that
// there are exactly as many errors as wants.
func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	got := errStrings(errs)
	require.Len(t, got, len(want), "errors: %q", got)
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		assert.True(t, found, "no error starting %q in %q", w, got)
	}
}

func userRule() PolicyRulesWithSubjects {
	return PolicyRulesWithSubjects{
		Subjects:         []Subject{user("alice")},
		NonResourceRules: []NonResourcePolicyRule{{Verbs: []string{VerbAll}, NonResourceURLs: []string{NonResourceAll}}},
	}
}

func TestValidateFlowSchema(t *testing.T) {
	fs := func(name string, mut func(*FlowSchemaSpec)) *FlowSchema {
		f := &FlowSchema{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: FlowSchemaSpec{
			PriorityLevelConfiguration: PriorityLevelConfigurationReference{Name: "global-default"},
			MatchingPrecedence:         500, Rules: []PolicyRulesWithSubjects{userRule()},
		}}
		if mut != nil {
			mut(&f.Spec)
		}
		return f
	}
	tests := []struct {
		name string
		fs   *FlowSchema
		want []string
	}{
		{"valid", fs("a", nil), nil},
		{"bad name", fs("Bad_Name", nil), []string{`metadata.name: Invalid value: "Bad_Name"`}},
		{"negative precedence", fs("a", func(s *FlowSchemaSpec) { s.MatchingPrecedence = -1 }), []string{"spec.matchingPrecedence: Invalid value: -1: must be a positive value"}},
		{"precedence too big", fs("a", func(s *FlowSchemaSpec) { s.MatchingPrecedence = 10001 }), []string{"spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000"}},
		{"precedence 1 not exempt", fs("a", func(s *FlowSchemaSpec) { s.MatchingPrecedence = 1 }), []string{"spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"}},
		{"no level", fs("a", func(s *FlowSchemaSpec) { s.PriorityLevelConfiguration.Name = "" }), []string{"spec.priorityLevelConfiguration.name: Required value: must reference a priority level"}},
		{"bad distinguisher", fs("a", func(s *FlowSchemaSpec) { s.DistinguisherMethod = &FlowDistinguisherMethod{Type: "ByPhase"} }), []string{"spec.distinguisherMethod.type: Unsupported value"}},
		{"no subjects", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].Subjects = nil }), []string{"spec.rules[0].subjects: Required value: subjects must contain at least one value"}},
		{"no rules", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].NonResourceRules = nil }), []string{"spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty"}},
		{"conflicting subject members", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].Subjects[0].Group = &GroupSubject{Name: "g"} }), []string{"spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'"}},
		{"unknown subject kind", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].Subjects[0].Kind = "Robot" }), []string{"spec.rules[0].subjects[0].kind: Unsupported value: \"Robot\""}},
		{"service account without namespace", fs("a", func(s *FlowSchemaSpec) {
			s.Rules[0].Subjects[0] = Subject{Kind: SubjectKindServiceAccount, ServiceAccount: &ServiceAccountSubject{Name: "x"}}
		}), []string{"spec.rules[0].subjects[0].serviceAccount.namespace: Required value"}},
		{"wildcard verb with others", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].NonResourceRules[0].Verbs = []string{"*", "get"} }), []string{"spec.rules[0].nonResourceRules[0].verbs: Invalid value"}},
		{"unknown verb", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].NonResourceRules[0].Verbs = []string{"escalate"} }), []string{"spec.rules[0].nonResourceRules[0].verbs: Unsupported value"}},
		{"relative URL", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].NonResourceRules[0].NonResourceURLs = []string{"healthz"} }), []string{`spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash`}},
		{"inner wildcard", fs("a", func(s *FlowSchemaSpec) { s.Rules[0].NonResourceRules[0].NonResourceURLs = []string{"/a/*/b"} }), []string{"spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: \"/a/*/b\": wildcard can only do suffix matching"}},
		{"resource rule without namespaces", fs("a", func(s *FlowSchemaSpec) {
			s.Rules[0].ResourceRules = []ResourcePolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}
		}), []string{"spec.rules[0].resourceRules[0].namespaces: Required value"}},
		{"bad namespace", fs("a", func(s *FlowSchemaSpec) {
			s.Rules[0].ResourceRules = []ResourcePolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, Namespaces: []string{"Kube_System"}}}
		}), []string{"spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: \"Kube_System\": each member of this list must be '*' or a DNS-1123 label"}},
		{"mandatory spec changed", fs(NameCatchAll, nil), []string{"spec: Invalid value"}},
		{"duplicate condition", func() *FlowSchema {
			f := fs("a", nil)
			f.Status.Conditions = []FlowSchemaCondition{{Type: "Dangling"}, {Type: "Dangling"}}
			return f
		}(), []string{`status.conditions[1].type: Duplicate value: "Dangling"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SetDefaultsFlowSchema(tt.fs)
			assertErrors(t, ValidateFlowSchema(tt.fs), tt.want)
		})
	}
}

func TestValidatePriorityLevelConfiguration(t *testing.T) {
	limited := func(name string, mut func(*LimitedPriorityLevelConfiguration)) *PriorityLevelConfiguration {
		pl := &PriorityLevelConfiguration{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: PriorityLevelConfigurationSpec{
			Type: PriorityLevelEnablementLimited,
			Limited: &LimitedPriorityLevelConfiguration{LimitResponse: LimitResponse{
				Type: LimitResponseTypeQueue, Queuing: &QueuingConfiguration{}}},
		}}
		if mut != nil {
			mut(pl.Spec.Limited)
		}
		return pl
	}
	tests := []struct {
		name string
		pl   *PriorityLevelConfiguration
		want []string
	}{
		{"valid, defaulted", limited("a", nil), nil},
		{"negative shares", limited("a", func(l *LimitedPriorityLevelConfiguration) { l.NominalConcurrencyShares = ptr(int32(-1)) }),
			[]string{"spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer"}},
		{"lendable over 100", limited("a", func(l *LimitedPriorityLevelConfiguration) { l.LendablePercent = ptr(int32(101)) }),
			[]string{"spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive"}},
		{"negative borrowing", limited("a", func(l *LimitedPriorityLevelConfiguration) { l.BorrowingLimitPercent = ptr(int32(-5)) }),
			[]string{"spec.limited.borrowingLimitPercent: Invalid value: -5: if specified, must be a non-negative integer"}},
		{"reject with queuing", limited("a", func(l *LimitedPriorityLevelConfiguration) { l.LimitResponse.Type = LimitResponseTypeReject }),
			[]string{"spec.limited.limitResponse.queuing: Forbidden"}},
		{"queue without queuing", limited("a", func(l *LimitedPriorityLevelConfiguration) { l.LimitResponse.Queuing = nil }),
			[]string{"spec.limited.limitResponse.queuing: Required value"}},
		{"hand bigger than deck", limited("a", func(l *LimitedPriorityLevelConfiguration) {
			l.LimitResponse.Queuing = &QueuingConfiguration{Queues: 4, HandSize: 5}
		}),
			[]string{"spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)"}},
		{"too much entropy", limited("a", func(l *LimitedPriorityLevelConfiguration) {
			l.LimitResponse.Queuing = &QueuingConfiguration{Queues: 1 << 20, HandSize: 8}
		}), []string{"spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 1048576 and handSize 8 should not be greater than 60"}},
		{"too many queues", limited("a", func(l *LimitedPriorityLevelConfiguration) {
			l.LimitResponse.Queuing = &QueuingConfiguration{Queues: MaxQueues + 1, HandSize: 1}
		}),
			[]string{"spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000"}},
		{"exempt type on another name", &PriorityLevelConfiguration{ObjectMeta: meta.ObjectMeta{Name: "a"}, Spec: PriorityLevelConfigurationSpec{Type: PriorityLevelEnablementExempt}},
			[]string{"spec.type: Invalid value: \"Exempt\": must be 'Exempt' if and only if `name` is 'exempt'"}},
		{"no type", &PriorityLevelConfiguration{ObjectMeta: meta.ObjectMeta{Name: "a"}}, []string{"spec.type: Required value"}},
		{"both blocks", func() *PriorityLevelConfiguration {
			pl := limited("a", nil)
			pl.Spec.Exempt = &ExemptPriorityLevelConfiguration{}
			return pl
		}(), []string{"spec.exempt: Forbidden: must be nil if the type is Limited"}},
		{"mandatory catch-all changed", limited(NameCatchAll, nil), []string{"spec: Invalid value"}},
		{"exempt may change its exempt block", &PriorityLevelConfiguration{ObjectMeta: meta.ObjectMeta{Name: NameExempt}, Spec: PriorityLevelConfigurationSpec{
			Type: PriorityLevelEnablementExempt, Exempt: &ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(7))}}}, nil},
		{"beta annotation", func() *PriorityLevelConfiguration {
			pl := limited("a", nil)
			pl.Annotations = map[string]string{preserveZeroSharesAnnotation: ""}
			return pl
		}(), []string{"metadata.annotations: Forbidden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SetDefaultsPriorityLevelConfiguration(tt.pl)
			assertErrors(t, ValidatePriorityLevelConfiguration(tt.pl), tt.want)
		})
	}
}

// TestDefaults: kube's v1 defaults, with an explicit zero share kept.
func TestDefaults(t *testing.T) {
	pl := &PriorityLevelConfiguration{Spec: PriorityLevelConfigurationSpec{Type: PriorityLevelEnablementLimited,
		Limited: &LimitedPriorityLevelConfiguration{LimitResponse: LimitResponse{Type: LimitResponseTypeQueue, Queuing: &QueuingConfiguration{}}}}}
	SetDefaultsPriorityLevelConfiguration(pl)
	assert.Equal(t, int32(30), *pl.Spec.Limited.NominalConcurrencyShares)
	assert.Equal(t, int32(0), *pl.Spec.Limited.LendablePercent)
	assert.Equal(t, QueuingConfiguration{Queues: 64, HandSize: 8, QueueLengthLimit: 50}, *pl.Spec.Limited.LimitResponse.Queuing)
	zero := &PriorityLevelConfiguration{Spec: PriorityLevelConfigurationSpec{Limited: &LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0))}}}
	SetDefaultsPriorityLevelConfiguration(zero)
	assert.Equal(t, int32(0), *zero.Spec.Limited.NominalConcurrencyShares)
	ex := &PriorityLevelConfiguration{Spec: PriorityLevelConfigurationSpec{Exempt: &ExemptPriorityLevelConfiguration{}}}
	SetDefaultsPriorityLevelConfiguration(ex)
	assert.Equal(t, ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))}, *ex.Spec.Exempt)
	fs := &FlowSchema{}
	SetDefaultsFlowSchema(fs)
	assert.Equal(t, int32(1000), fs.Spec.MatchingPrecedence)
}

// TestBootstrapConfiguration: kube-apiserver 1.37's objects, every one
// valid after defaulting, every schema naming a level that exists.
func TestBootstrapConfiguration(t *testing.T) {
	b := BootstrapConfiguration()
	levels := map[string]bool{}
	var names []string
	for _, pl := range append(b.MandatoryPriorityLevels, b.SuggestedPriorityLevels...) {
		SetDefaultsPriorityLevelConfiguration(pl)
		assert.Empty(t, ValidatePriorityLevelConfiguration(pl), pl.Name)
		assert.Equal(t, "true", pl.Annotations[AutoUpdateAnnotationKey])
		levels[pl.Name] = true
		names = append(names, pl.Name)
	}
	assert.ElementsMatch(t, []string{"exempt", "catch-all", "system", "node-high", "leader-election", "workload-high", "workload-low", "global-default"}, names)
	names = nil
	for _, fs := range append(b.MandatoryFlowSchemas, b.SuggestedFlowSchemas...) {
		SetDefaultsFlowSchema(fs)
		assert.Empty(t, ValidateFlowSchema(fs), fs.Name)
		assert.True(t, levels[fs.Spec.PriorityLevelConfiguration.Name], "%s names a missing level", fs.Name)
		names = append(names, fs.Name)
	}
	assert.ElementsMatch(t, []string{"exempt", "catch-all", "system-nodes", "system-node-high", "probes", "system-leader-election",
		"kube-controller-manager", "kube-scheduler", "kube-system-service-accounts", "service-accounts", "global-default"}, names)
	b.MandatoryFlowSchemas[0].Spec.MatchingPrecedence = 7
	assert.Equal(t, int32(1), BootstrapConfiguration().MandatoryFlowSchemas[0].Spec.MatchingPrecedence, "each call is fresh")
}
