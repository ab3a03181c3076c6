package rbac

import (
	"fmt"
	"slices"
	"strings"
)

// Covers reports whether owner grants everything servant grants, as
// Kubernetes' escalation check decides it: each servant rule is broken
// down into simple rules (BreakdownRule) and each simple rule must be
// covered by one owner rule. The simple rules no owner rule covers are
// returned, in breakdown order. Pure; safe for concurrent use.
func Covers(owner, servant []PolicyRule) (bool, []PolicyRule) {
	var missing []PolicyRule
	for _, r := range servant {
		for _, sub := range BreakdownRule(r) {
			if !slices.ContainsFunc(owner, func(o PolicyRule) bool { return ruleCovers(o, sub) }) {
				missing = append(missing, sub)
			}
		}
	}
	return len(missing) == 0, missing
}

// BreakdownRule splits a rule into rules of one verb on one group and
// resource (and one resource name, when the rule names some), and one
// verb on one non-resource URL. A rule without verbs, groups or resources
// breaks down into nothing on that side, as in Kubernetes.
func BreakdownRule(r PolicyRule) []PolicyRule {
	var out []PolicyRule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
					continue
				}
				for _, n := range r.ResourceNames {
					out = append(out, PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// ruleCovers reports whether owner grants all of sub (a simple rule, or
// any rule: every list must be covered whole).
func ruleCovers(owner, sub PolicyRule) bool {
	verbs := slices.Contains(owner.Verbs, VerbAll) || hasAll(owner.Verbs, sub.Verbs)
	groups := slices.Contains(owner.APIGroups, APIGroupAll) || hasAll(owner.APIGroups, sub.APIGroups)
	names := len(owner.ResourceNames) == 0 || (len(sub.ResourceNames) > 0 && hasAll(owner.ResourceNames, sub.ResourceNames))
	return verbs && groups && resourcesCover(owner.Resources, sub.Resources) && names &&
		nonResourceURLsCover(owner.NonResourceURLs, sub.NonResourceURLs)
}

func hasAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// resourcesCover: "*" covers everything, "x/sub" is covered by itself or
// by "*/sub"; a plain resource only by itself.
func resourcesCover(owner, want []string) bool {
	if slices.Contains(owner, ResourceAll) {
		return true
	}
	for _, w := range want {
		if slices.Contains(owner, w) {
			continue
		}
		_, sub, ok := strings.Cut(w, "/")
		if !ok || !slices.Contains(owner, "*/"+sub) {
			return false
		}
	}
	return true
}

// nonResourceURLsCover: an owner URL covers itself, and one ending in "*"
// every URL that starts with what precedes the "*".
func nonResourceURLsCover(owner, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(owner, func(o string) bool {
			return o == w || (strings.HasSuffix(o, "*") && strings.HasPrefix(w, strings.TrimRight(o, "*")))
		}) {
			return false
		}
	}
	return true
}

// CompactRules merges simple resource rules (one group, one resource, at
// most one resource name, no URLs) that differ only in their verbs, as
// Kubernetes does before it lists missing permissions; other rules are
// kept as they are, before the merged ones. The input is not changed.
func CompactRules(rules []PolicyRule) []PolicyRule {
	type key struct {
		group, resource, name string
		named                 bool
	}
	var (
		out    []PolicyRule
		order  []key
		simple = map[key]*PolicyRule{}
	)
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := key{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.name, k.named = r.ResourceNames[0], true
		}
		cur, ok := simple[k]
		if !ok {
			c := PolicyRule{APIGroups: slices.Clone(r.APIGroups), Resources: slices.Clone(r.Resources),
				ResourceNames: slices.Clone(r.ResourceNames), Verbs: slices.Clone(r.Verbs)}
			simple[k] = &c
			order = append(order, k)
			continue
		}
		for _, v := range r.Verbs {
			if !slices.Contains(cur.Verbs, v) {
				cur.Verbs = append(cur.Verbs, v)
			}
		}
	}
	for _, k := range order {
		out = append(out, *simple[k])
	}
	return out
}

// CompactString words a rule as Kubernetes' escalation errors do:
// {APIGroups:[""], Resources:["secrets"], Verbs:["get"]}, naming only the
// lists that are set.
func CompactString(r PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
