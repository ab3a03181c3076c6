package rbac

import "strings"

// RuleAllows reports whether rule grants verb on the named object (name may
// be empty for collection requests) of resource/subresource in apiGroup.
// It matches as Kubernetes' RBAC authorizer does:
//
//   - a verb, API group or resource of "*" matches anything;
//   - a subresource request ("pods/log") matches a rule resource of
//     "pods/log", or "*/log", but not "pods";
//   - an empty ResourceNames matches every name; otherwise name must be
//     listed (so a rule with ResourceNames never grants list or create of
//     an unnamed object).
//
// Rules that carry only NonResourceURLs never match a resource request.
// RuleAllows is pure and safe for concurrent use.
func RuleAllows(rule PolicyRule, verb, apiGroup, resource, subresource, name string) bool {
	return verbMatches(rule.Verbs, verb) &&
		containsOrWildcard(rule.APIGroups, apiGroup, APIGroupAll) &&
		resourceMatches(rule.Resources, resource, subresource) &&
		resourceNameMatches(rule.ResourceNames, name)
}

// RuleAllowsNonResource reports whether rule grants verb on the URL path. A
// rule URL of "*" matches every path, an exact URL matches itself, and a URL
// ending in "*" matches every path with the part before the "*" as prefix
// ("/apis/*" matches "/apis/apps/v1"). It is pure and safe for concurrent use.
func RuleAllowsNonResource(rule PolicyRule, verb, path string) bool {
	if !verbMatches(rule.Verbs, verb) {
		return false
	}
	for _, u := range rule.NonResourceURLs {
		switch {
		case u == NonResourceAll, u == path:
			return true
		case strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")):
			return true
		}
	}
	return false
}

// RulesAllow reports whether any of rules grants the resource request (see
// RuleAllows).
func RulesAllow(rules []PolicyRule, verb, apiGroup, resource, subresource, name string) bool {
	for _, r := range rules {
		if RuleAllows(r, verb, apiGroup, resource, subresource, name) {
			return true
		}
	}
	return false
}

// RulesAllowNonResource reports whether any of rules grants the non-resource
// request (see RuleAllowsNonResource).
func RulesAllowNonResource(rules []PolicyRule, verb, path string) bool {
	for _, r := range rules {
		if RuleAllowsNonResource(r, verb, path) {
			return true
		}
	}
	return false
}

func verbMatches(verbs []string, verb string) bool {
	return containsOrWildcard(verbs, verb, VerbAll)
}

func containsOrWildcard(list []string, want, wildcard string) bool {
	for _, v := range list {
		if v == wildcard || v == want {
			return true
		}
	}
	return false
}

func resourceMatches(resources []string, resource, subresource string) bool {
	combined := resource
	if subresource != "" {
		combined = resource + "/" + subresource
	}
	for _, r := range resources {
		if r == ResourceAll || r == combined {
			return true
		}
		if subresource != "" && r == "*/"+subresource {
			return true
		}
	}
	return false
}

func resourceNameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
