package core

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/validation"
)

// ValidateResourceQuota checks a ResourceQuota: resource names and
// non-negative quantities in spec.hard, status.hard and status.used, and
// supported scopes.
func ValidateResourceQuota(q *ResourceQuota) field.ErrorList {
	errs := validation.ValidateObjectMeta(&q.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateResourceList(q.Spec.Hard, field.NewPath("spec", "hard"))...)
	errs = append(errs, validateResourceList(q.Status.Hard, field.NewPath("status", "hard"))...)
	errs = append(errs, validateResourceList(q.Status.Used, field.NewPath("status", "used"))...)
	for i, s := range q.Spec.Scopes {
		errs = append(errs, validateEnum(s, true, field.NewPath("spec", "scopes").Index(i),
			ResourceQuotaScopeBestEffort, ResourceQuotaScopeCrossNamespacePodAffinity, ResourceQuotaScopeNotBestEffort,
			ResourceQuotaScopeNotTerminating, ResourceQuotaScopePriorityClass, ResourceQuotaScopeTerminating,
			ResourceQuotaScopeVolumeAttributesClass)...)
	}
	return errs
}

// ValidateResourceQuotaUpdate checks q as a replacement for old: valid on
// its own, and the scopes unchanged.
func ValidateResourceQuotaUpdate(q, old *ResourceQuota) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateResourceQuota(q)...)
	if fmt.Sprint(q.Spec.Scopes) != fmt.Sprint(old.Spec.Scopes) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "scopes"), fmt.Sprint(q.Spec.Scopes), fieldImmutableMsg))
	}
	return errs
}

// ValidateLimitRange checks a LimitRange: each type once, resource names
// valid for the type, no defaults for Pod limits, PVC limits with a min or
// max storage, and min ≤ defaultRequest ≤ default ≤ max with ratios ≥ 1.
func ValidateLimitRange(lr *LimitRange) field.ErrorList {
	errs := validation.ValidateObjectMeta(&lr.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	lp := field.NewPath("spec", "limits")
	seen := map[LimitType]bool{}
	for i := range lr.Spec.Limits {
		item, ip := &lr.Spec.Limits[i], lp.Index(i)
		errs = append(errs, validateLimitType(item.Type, ip.Child("type"))...)
		if seen[item.Type] {
			errs = append(errs, field.Duplicate(ip.Child("type"), string(item.Type)))
		}
		seen[item.Type] = true
		errs = append(errs, validateLimitItemNames(item, ip)...)
		if item.Type == LimitTypePod {
			if len(item.Default) > 0 {
				errs = append(errs, field.Forbidden(ip.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(item.DefaultRequest) > 0 {
				errs = append(errs, field.Forbidden(ip.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		}
		if item.Type == LimitTypePersistentVolumeClaim {
			_, hasMin := item.Min[ResourceStorage]
			_, hasMax := item.Max[ResourceStorage]
			if !hasMin && !hasMax {
				errs = append(errs, field.Required(ip.Child("limits"),
					"either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		errs = append(errs, validateLimitOrder(item, ip)...)
	}
	return errs
}

func validateLimitType(t LimitType, p *field.Path) field.ErrorList {
	errs := invalidAll(p, string(t), validation.IsQualifiedName(string(t)))
	if len(errs) == 0 && !strings.Contains(string(t), "/") &&
		t != LimitTypePod && t != LimitTypeContainer && t != LimitTypePersistentVolumeClaim {
		errs = append(errs, field.Invalid(p, string(t), "must be a standard limit type or fully qualified"))
	}
	return errs
}

func validateLimitItemNames(item *LimitRangeItem, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, l := range []struct {
		name string
		rl   ResourceList
	}{{"max", item.Max}, {"min", item.Min}, {"default", item.Default},
		{"defaultRequest", item.DefaultRequest}, {"maxLimitRequestRatio", item.MaxLimitRequestRatio}} {
		for _, name := range sortedNames(l.rl) {
			kp := p.Child(l.name).Key(string(name))
			if item.Type == LimitTypePod || item.Type == LimitTypeContainer {
				errs = append(errs, validateContainerResourceName(name, kp)...)
			} else {
				errs = append(errs, validateResourceName(name, kp)...)
			}
			errs = append(errs, validateQuantity(name, l.rl[name], kp)...)
		}
	}
	return errs
}

// validateLimitOrder checks min ≤ defaultRequest ≤ default ≤ max and the
// ratio bounds, per resource.
func validateLimitOrder(item *LimitRangeItem, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[ResourceName]bool{}
	var names []ResourceName
	for _, rl := range []ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
		for n := range rl {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	check := func(a, b ResourceList, n ResourceName, path, format string, reportA bool) {
		qa, okA := a[n]
		qb, okB := b[n]
		if okA && okB && qa.Cmp(qb) > 0 {
			bad := qb.String()
			if reportA {
				bad = qa.String()
			}
			errs = append(errs, field.Invalid(p.Child(path).Key(string(n)), bad, fmt.Sprintf(format, qa.String(), qb.String())))
		}
	}
	for _, n := range names {
		check(item.Min, item.Max, n, "min", "min value %s is greater than max value %s", true)
		check(item.Min, item.DefaultRequest, n, "defaultRequest", "min value %s is greater than default request value %s", false)
		check(item.DefaultRequest, item.Max, n, "defaultRequest", "default request value %s is greater than max value %s", true)
		check(item.DefaultRequest, item.Default, n, "defaultRequest", "default request value %s is greater than default limit value %s", true)
		check(item.Min, item.Default, n, "default", "min value %s is greater than default value %s", true)
		check(item.Default, item.Max, n, "default", "default value %s is greater than max value %s", false)
		errs = append(errs, validateLimitRatio(item, n, p)...)
	}
	return errs
}

func validateLimitRatio(item *LimitRangeItem, n ResourceName, p *field.Path) field.ErrorList {
	ratio, ok := item.MaxLimitRequestRatio[n]
	if !ok {
		return nil
	}
	rp := p.Child("maxLimitRequestRatio").Key(string(n))
	if ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		return field.ErrorList{field.Invalid(rp, ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String()))}
	}
	minQ, okMin := item.Min[n]
	maxQ, okMax := item.Max[n]
	if !okMin || !okMax || minQ.Sign() <= 0 {
		return nil
	}
	limit := maxQ.AsApproximateFloat64() / minQ.AsApproximateFloat64()
	if ratio.AsApproximateFloat64() > limit {
		return field.ErrorList{field.Invalid(rp, ratio.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), limit))}
	}
	return nil
}
