package schema

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"

	"github.com/orkit/orkit/api/field"
)

// celEvaluator runs the compiled rules of a tree over an object (and its
// old version on update) within a cost budget, as Kubernetes' CEL
// validator does.
type celEvaluator struct {
	ctx    context.Context
	budget int64
	errs   field.ErrorList
}

// walk evaluates the rules at n and below for x (old is the correlated old
// value or nil). It returns false once the budget is exhausted.
func (e *celEvaluator) walk(n *node, x, old any, p walkPath) bool {
	if n == nil || !n.hasCEL || x == nil {
		return true
	}
	if n.cel != nil && !e.rules(n, x, old, p) {
		return false
	}
	switch x := x.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		return e.walkMap(n, x, oldMap, p)
	case []any:
		oldList, _ := old.([]any)
		return e.walkList(n, x, oldList, p)
	}
	return true
}

func (e *celEvaluator) walkMap(n *node, x, old map[string]any, p walkPath) bool {
	for _, k := range n.propNames {
		if v, ok := x[k]; ok {
			if !e.walk(n.properties[k], v, lookup(old, k), p.prop(k)) {
				return false
			}
		}
	}
	if n.additional != nil && n.additional.hasCEL {
		for _, k := range sortedKeys(x) {
			if _, ok := n.properties[k]; !ok && !e.walk(n.additional, x[k], lookup(old, k), p.key(k)) {
				return false
			}
		}
	}
	return true
}

func lookup(m map[string]any, k string) any {
	if m == nil {
		return nil
	}
	return m[k]
}

func (e *celEvaluator) walkList(n *node, x, old []any, p walkPath) bool {
	if n.items == nil || !n.items.hasCEL {
		return true
	}
	var olds map[string]any
	if n.listType == "map" && len(old) > 0 {
		olds = make(map[string]any, len(old))
		for _, o := range old {
			olds[mapKeyOf(n, o)] = o
		}
	}
	for i, v := range x {
		var o any
		if olds != nil {
			o = olds[mapKeyOf(n, v)]
		}
		if !e.walk(n.items, v, o, p.index(i)) {
			return false
		}
	}
	return true
}

// mapKeyOf is the identity of an item of a list of type map.
func mapKeyOf(n *node, item any) string {
	m, _ := item.(map[string]any)
	key := make([]any, len(n.listMapKeys))
	for i, k := range n.listMapKeys {
		key[i] = lookup(m, k)
	}
	return jsonKey(key)
}

// activation binds self and oldSelf.
type activation struct {
	self, oldSelf any
	hasOld        bool
}

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		return a.oldSelf, a.hasOld
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }

// rules evaluates the rules of n on x.
func (e *celEvaluator) rules(n *node, x, old any, p walkPath) bool {
	if e.budget <= 0 {
		e.errs = append(e.errs, field.Invalid(p.fieldPath(nil), n.valueTypeName(), "validation failed due to running out of cost budget, no further validation rules will be run"))
		return false
	}
	d := n.cel.decl
	self := d.value(x)
	var oldVal any
	if old != nil {
		oldVal = d.value(old)
	}
	unchanged := old != nil && EqualJSON(x, old)
	for _, r := range n.cel.rules {
		if unchanged && !r.usesOldSelf {
			continue // ratcheting: an unchanged value is not checked again
		}
		act := &activation{self: self, oldSelf: oldVal, hasOld: old != nil}
		if r.usesOldSelf {
			if r.optionalOldSelf {
				act.hasOld = true
				if old == nil {
					act.oldSelf = types.OptionalNone
				} else {
					act.oldSelf = types.OptionalOf(types.DefaultTypeAdapter.NativeToValue(oldVal))
				}
			} else if old == nil {
				continue // transition rules need an old value
			}
		}
		if !e.rule(n, r, act, p) {
			return false
		}
	}
	return true
}

func (e *celEvaluator) rule(n *node, r *compiledRule, act *activation, p walkPath) bool {
	val, det, err := r.prog.ContextEval(e.ctx, act)
	if val == types.True && det != nil && det.ActualCost() != nil && *det.ActualCost() <= uint64(max(e.budget, 0)) {
		e.budget -= int64(*det.ActualCost())
		return true // the common case, without building the error path
	}
	fp := p.fieldPath(nil)
	if det == nil || det.ActualCost() == nil {
		e.errs = append(e.errs, field.InternalError(fp, fmt.Errorf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleText(r.rule))))
		return false
	}
	if cost := *det.ActualCost(); cost > math.MaxInt64 || int64(cost) > e.budget {
		e.errs = append(e.errs, field.Invalid(fp, n.valueTypeName(), "validation failed due to running out of cost budget, no further validation rules will be run"))
		e.budget = -1
		return false
	} else {
		e.budget -= int64(cost)
	}
	if err != nil {
		msg := err.Error()
		switch {
		case strings.HasPrefix(msg, "no such overload"):
			e.errs = append(e.errs, field.Invalid(fp, n.valueTypeName(), fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleText(r.rule))))
		case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
			e.errs = append(e.errs, field.Invalid(fp, n.valueTypeName(), fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleText(r.rule))))
			return false
		default:
			e.errs = append(e.errs, field.Invalid(fp, n.valueTypeName(), fmt.Sprintf("%v evaluating rule: %v", err, ruleText(r.rule))))
		}
		return true
	}
	if val == types.True {
		return true
	}
	msg := ruleMessage(r.rule)
	if r.msgProg != nil {
		m, ok := e.message(r, act)
		if !ok && e.budget < 0 {
			e.errs = append(e.errs, field.Invalid(fp, n.valueTypeName(), m))
			return false
		}
		if ok {
			msg = m
		}
	}
	e.errs = append(e.errs, ruleError(append(p, r.fieldPath...).fieldPath(nil), n.valueTypeName(), msg, r.rule.Reason))
	return true
}

// message evaluates a messageExpression; false means its value is not
// usable (the rule's message applies), with a budget below zero when
// evaluation must stop.
func (e *celEvaluator) message(r *compiledRule, act *activation) (string, bool) {
	val, det, err := r.msgProg.ContextEval(e.ctx, act)
	if det == nil || det.ActualCost() == nil {
		e.budget = -1
		return fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", r.rule.MessageExpression), false
	}
	if cost := *det.ActualCost(); cost > math.MaxInt64 || int64(cost) > e.budget {
		e.budget = -1
		return "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run", false
	} else {
		e.budget -= int64(cost)
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			e.budget = -1
			return fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", r.rule.MessageExpression), false
		}
		return "", false
	}
	s, ok := val.Value().(string)
	s = strings.TrimSpace(s)
	if !ok || s == "" || len(s) > maxMessageExpressionLength || strings.Contains(s, "\n") {
		return "", false
	}
	return s, true
}

// ruleError is the error of a failed rule, of the type its reason names.
func ruleError(p *field.Path, value any, detail string, reason *FieldValueErrorReason) *field.Error {
	if reason == nil {
		return field.Invalid(p, value, detail)
	}
	switch *reason {
	case FieldValueForbidden:
		return field.Forbidden(p, detail)
	case FieldValueRequired:
		return field.Required(p, detail)
	case FieldValueDuplicate:
		return field.Duplicate(p, value)
	}
	return field.Invalid(p, value, detail)
}

func ruleMessage(r ValidationRule) string {
	if r.Message == "" {
		return "failed rule: " + ruleText(r)
	}
	return strings.TrimSpace(r.Message)
}

func ruleText(r ValidationRule) string {
	if r.Message != "" {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}
