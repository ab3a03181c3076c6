package apiextensions

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/orkit/orkit/api/meta"
)

// AcceptNames decides which of crd's requested names it may serve, as
// kube-apiserver's naming controller does: a name is accepted when it is
// already crd's accepted name or no CRD of the same group (others, which
// may include crd itself) has accepted it. It returns the accepted names,
// the NamesAccepted condition (True "NoConflicts", or False with
// PluralConflict, SingularConflict, ShortNamesConflict, KindConflict or
// ListKindConflict and `"x" is already in use`) and the Established
// condition to set now (False "Installing" once the names are accepted;
// the controller that starts serving sets it True with
// EstablishedCondition). Transition times are left zero (SetCondition
// fills them).
func AcceptNames(crd *CustomResourceDefinition, others []*CustomResourceDefinition) (CustomResourceDefinitionNames, CustomResourceDefinitionCondition, CustomResourceDefinitionCondition) {
	resources, kinds := usedNames(crd.Spec.Group, others)
	cond := CustomResourceDefinitionCondition{Type: NamesAccepted, Status: meta.ConditionUnknown}
	req, acc := crd.Spec.Names, crd.Status.AcceptedNames
	out := acc
	conflict := func(reason string, err error) bool {
		if err == nil {
			return false
		}
		cond.Status, cond.Reason, cond.Message = meta.ConditionFalse, reason, err.Error()
		return true
	}
	if !conflict("PluralConflict", freeOrOwn(req.Plural, acc.Plural, resources)) {
		out.Plural = req.Plural
	}
	if !conflict("SingularConflict", freeOrOwn(req.Singular, acc.Singular, resources)) {
		out.Singular = req.Singular
	}
	if !reflect.DeepEqual(req.ShortNames, acc.ShortNames) && !conflict("ShortNamesConflict", shortNamesFree(req.ShortNames, acc.ShortNames, resources)) {
		out.ShortNames = req.ShortNames
	}
	if !conflict("KindConflict", freeOrOwn(req.Kind, acc.Kind, kinds)) {
		out.Kind = req.Kind
	}
	if !conflict("ListKindConflict", freeOrOwn(req.ListKind, acc.ListKind, kinds)) {
		out.ListKind = req.ListKind
	}
	out.Categories = req.Categories
	if cond.Status == meta.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = meta.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	est := CustomResourceDefinitionCondition{Type: Established, Status: meta.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted"}
	if old := crd.Condition(Established); old != nil {
		est = *old
	}
	if est.Status != meta.ConditionTrue && cond.Status == meta.ConditionTrue {
		est = CustomResourceDefinitionCondition{Type: Established, Status: meta.ConditionFalse, Reason: "Installing", Message: "the initial names have been accepted"}
	}
	return out, cond, est
}

// EstablishedCondition is the condition the API server sets once it
// serves a CRD whose names are accepted.
func EstablishedCondition() CustomResourceDefinitionCondition {
	return CustomResourceDefinitionCondition{Type: Established, Status: meta.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"}
}

func usedNames(group string, others []*CustomResourceDefinition) (resources, kinds map[string]bool) {
	resources, kinds = map[string]bool{}, map[string]bool{}
	for _, o := range others {
		if o.Spec.Group != group {
			continue
		}
		n := o.Status.AcceptedNames
		resources[n.Plural], resources[n.Singular] = true, true
		for _, s := range n.ShortNames {
			resources[s] = true
		}
		kinds[n.Kind], kinds[n.ListKind] = true, true
	}
	return resources, kinds
}

func freeOrOwn(requested, accepted string, used map[string]bool) error {
	if requested == accepted || !used[requested] {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

func shortNamesFree(requested, accepted []string, used map[string]bool) error {
	own := map[string]bool{}
	for _, s := range accepted {
		own[s] = true
	}
	var msgs []string
	for _, s := range requested {
		if own[s] {
			continue
		}
		if err := freeOrOwn(s, "", used); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s", msgs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}
