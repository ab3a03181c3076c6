package authz

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// ABAC policy file constants.
const (
	// ABACAPIVersion and ABACKind are required on every policy line.
	ABACAPIVersion = "abac.authorization.kubernetes.io/v1beta1"
	ABACKind       = "Policy"
	// MaxPolicyLine is the longest policy line accepted, in bytes.
	MaxPolicyLine = 64 << 10
	// MaxPolicyFile is the largest policy file accepted, in bytes.
	MaxPolicyFile = 8 << 20
)

// ABACPolicySpec is the spec of one ABAC policy line. "*" is a wildcard
// for every string field; empty user and group match nobody.
type ABACPolicySpec struct {
	User            string `json:"user,omitempty"`
	Group           string `json:"group,omitempty"`
	Readonly        bool   `json:"readonly,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	NonResourcePath string `json:"nonResourcePath,omitempty"`
}

// ABACPolicy is one line of the policy file.
type ABACPolicy struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Spec       ABACPolicySpec `json:"spec"`
}

// ABACAuthorizer allows a request that any policy line matches and has no
// opinion otherwise. It is immutable after loading and safe for concurrent
// use.
type ABACAuthorizer struct {
	policies []ABACPolicySpec
}

var _ Authorizer = (*ABACAuthorizer)(nil)

// ABAC loads Kubernetes' ABAC policy file: one JSON Policy object per
// line (apiVersion abac.authorization.kubernetes.io/v1beta1, kind
// Policy); blank lines and lines starting with "#" are skipped. A line
// that is not such an object, has unknown fields, or names neither user
// nor group is an error naming the line (*LineError wrapping
// ErrInvalidPolicy); nothing is loaded then.
func ABAC(path string) (*ABACAuthorizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	defer f.Close()
	return ReadABAC(path, f)
}

// ReadABAC is ABAC reading from r; name is used in errors.
func ReadABAC(name string, r io.Reader) (*ABACAuthorizer, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPolicyFile+1))
	if err != nil {
		return nil, &LineError{Path: name, Msg: err.Error()}
	}
	if len(data) > MaxPolicyFile {
		return nil, &LineError{Path: name, Msg: fmt.Sprintf("file is larger than %d bytes", MaxPolicyFile)}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxPolicyLine)
	z := &ABACAuthorizer{}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		spec, err := parseABACLine(text)
		if err != nil {
			return nil, &LineError{Path: name, Line: line, Msg: err.Error()}
		}
		z.policies = append(z.policies, spec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{Path: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxPolicyLine)}
		}
		return nil, &LineError{Path: name, Msg: err.Error()}
	}
	return z, nil
}

// parseABACLine decodes and checks one policy line.
func parseABACLine(text []byte) (ABACPolicySpec, error) {
	var p ABACPolicy
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return ABACPolicySpec{}, fmt.Errorf("not a policy object: %w", err)
	}
	if dec.More() {
		return ABACPolicySpec{}, fmt.Errorf("more than one JSON value on the line")
	}
	if p.APIVersion != ABACAPIVersion || p.Kind != ABACKind {
		return ABACPolicySpec{}, fmt.Errorf("apiVersion %q kind %q, want %q %q", p.APIVersion, p.Kind, ABACAPIVersion, ABACKind)
	}
	if p.Spec.User == "" && p.Spec.Group == "" {
		return ABACPolicySpec{}, fmt.Errorf("spec names neither user nor group, so it would match nobody")
	}
	return p.Spec, nil
}

// Len returns the number of policies loaded.
func (z *ABACAuthorizer) Len() int { return len(z.policies) }

// Authorize implements Authorizer with Kubernetes' ABAC matching: the
// subject matches (user and group, each if set, "*" for any), the verb is
// read-only or the policy is not readonly, and either the resource
// request's namespace, resource and apiGroup or the non-resource path
// ("*", exact, or a "/prefix*") match.
func (z *ABACAuthorizer) Authorize(_ context.Context, a Attributes) (Decision, string, error) {
	for _, p := range z.policies {
		if abacMatches(p, a) {
			return DecisionAllow, "", nil
		}
	}
	return DecisionNoOpinion, "No policy matched.", nil
}

func abacMatches(p ABACPolicySpec, a Attributes) bool {
	if !abacSubjectMatches(p, a) || (p.Readonly && !a.IsReadOnly()) {
		return false
	}
	if a.ResourceRequest {
		return wild(p.Namespace, a.Namespace) && wild(p.Resource, a.Resource) && wild(p.APIGroup, a.APIGroup)
	}
	switch {
	case p.NonResourcePath == "*", p.NonResourcePath == a.Path:
		return true
	case strings.HasSuffix(p.NonResourcePath, "*"):
		return strings.HasPrefix(a.Path, strings.TrimRight(p.NonResourcePath, "*"))
	}
	return false
}

func abacSubjectMatches(p ABACPolicySpec, a Attributes) bool {
	if a.User == nil {
		return false
	}
	if p.User != "" && p.User != "*" && p.User != a.User.Name {
		return false
	}
	if p.Group != "" && p.Group != "*" && !slices.Contains(a.User.Groups, p.Group) {
		return false
	}
	return p.User != "" || p.Group != ""
}

// wild reports whether policy value p ("*" for any) matches v.
func wild(p, v string) bool { return p == "*" || p == v }
