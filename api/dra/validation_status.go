package dra

import (
	"slices"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// validateClaimStatusUpdate checks a claim's status against the stored
// one (see ValidateResourceClaimUpdate).
func validateClaimStatusUpdate(c *ResourceClaim, old *ResourceClaimStatus, p *field.Path) field.ErrorList {
	st := &c.Status
	var errs field.ErrorList
	uids := make([]string, len(st.ReservedFor))
	for i, r := range st.ReservedFor {
		rp := p.Child("reservedFor").Index(i)
		uids[i] = string(r.UID)
		if r.Resource == "" {
			errs = append(errs, field.Required(rp.Child("resource"), ""))
		}
		if r.Name == "" {
			errs = append(errs, field.Required(rp.Child("name"), ""))
		}
		if r.UID == "" {
			errs = append(errs, field.Required(rp.Child("uid"), ""))
		}
	}
	errs = append(errs, validateUnique(uids, maxReservedFor, p.Child("reservedFor"))...)
	if len(st.ReservedFor) > 0 {
		switch {
		case st.Allocation == nil:
			errs = append(errs, field.Forbidden(p.Child("reservedFor"), "may not be specified when `allocated` is not set"))
		case c.DeletionTimestamp != nil && addsConsumers(st.ReservedFor, old.ReservedFor):
			errs = append(errs, field.Forbidden(p.Child("reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
		}
	}
	switch {
	case old.Allocation != nil && st.Allocation != nil:
		errs = append(errs, validation.ValidateImmutableField(*st.Allocation, *old.Allocation, p.Child("allocation"))...)
	case st.Allocation != nil:
		errs = append(errs, validateAllocation(st.Allocation, gatherRequestNames(&c.Spec.Devices), p.Child("allocation"))...)
	}
	return append(errs, validateDeviceStatuses(st.Devices, p.Child("devices"))...)
}

func addsConsumers(now, before []ResourceClaimConsumerReference) bool {
	had := map[ResourceClaimConsumerReference]bool{}
	for _, r := range before {
		had[r] = true
	}
	for _, r := range now {
		if !had[r] {
			return true
		}
	}
	return false
}

func validateAllocation(a *AllocationResult, names requestNames, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	dp := p.Child("devices")
	if len(a.Devices.Results) > maxAllocationResults {
		errs = append(errs, field.TooMany(dp.Child("results"), len(a.Devices.Results), maxAllocationResults))
	}
	for i, r := range a.Devices.Results {
		rp := dp.Child("results").Index(i)
		switch {
		case r.Request == "":
			errs = append(errs, field.Required(rp.Child("request"), ""))
		case !names.has(r.Request):
			errs = append(errs, field.Invalid(rp.Child("request"), r.Request, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"))
		}
		errs = append(errs, validateDriverName(r.Driver, rp.Child("driver"))...)
		errs = append(errs, validatePoolName(r.Pool, rp.Child("pool"))...)
		errs = append(errs, validateDNSLabel(r.Device, rp.Child("device"))...)
		errs = append(errs, validateTolerations(r.Tolerations, rp.Child("tolerations"))...)
		errs = append(errs, validateBindingConditions(r.BindingConditions, r.BindingFailureConditions, rp)...)
	}
	if len(a.Devices.Config) > 2*maxConfigs {
		errs = append(errs, field.TooMany(dp.Child("config"), len(a.Devices.Config), 2*maxConfigs))
	}
	for i, c := range a.Devices.Config {
		cp := dp.Child("config").Index(i)
		if c.Source == "" {
			errs = append(errs, field.Required(cp.Child("source"), ""))
		} else if !slices.Contains(validSources, string(c.Source)) {
			errs = append(errs, field.NotSupported(cp.Child("source"), string(c.Source), validSources))
		}
		errs = append(errs, validateRequestRefs(c.Requests, cp.Child("requests"), names)...)
		errs = append(errs, validateDeviceConfiguration(c.DeviceConfiguration, cp, false)...)
	}
	if a.NodeSelector != nil {
		errs = append(errs, validateNodeSelector(a.NodeSelector, p.Child("nodeSelector"))...)
	}
	return errs
}

func validateDeviceStatuses(ds []AllocatedDeviceStatus, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ids := make([]string, len(ds))
	for i, d := range ds {
		dp := p.Index(i)
		ids[i] = d.Driver + "/" + d.Pool + "/" + d.Device
		if d.ShareID != nil {
			ids[i] += "/" + *d.ShareID
		}
		errs = append(errs, validateDriverName(d.Driver, dp.Child("driver"))...)
		errs = append(errs, validatePoolName(d.Pool, dp.Child("pool"))...)
		errs = append(errs, validateDNSLabel(d.Device, dp.Child("device"))...)
		errs = append(errs, validateConditions(d.Conditions, maxRuleConditions, dp.Child("conditions"))...)
		if len(d.Data) > 0 {
			errs = append(errs, validateRawJSON(d.Data, dp.Child("data"), false, maxOpaqueParameters)...)
		}
	}
	return append(errs, validateUnique(ids, -1, p)...)
}

// validateBindingConditions: at most 4 of each, unique, qualified names,
// not overlapping, and both or neither.
func validateBindingConditions(conds, failures []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, list := range map[string][]string{"bindingConditions": conds, "bindingFailureConditions": failures} {
		errs = append(errs, validateUnique(list, maxBindingConditions, p.Child(name))...)
		for i, c := range list {
			errs = append(errs, validateLabelName(c, p.Child(name).Index(i))...)
		}
	}
	for i, f := range failures {
		if slices.Contains(conds, f) {
			errs = append(errs, field.Invalid(p.Child("bindingFailureConditions").Index(i), f, "bindingFailureConditions must not overlap with bindingConditions"))
		}
	}
	switch {
	case len(conds) == 0 && len(failures) > 0:
		errs = append(errs, field.Invalid(p.Child("bindingConditions"), conds, "bindingConditions are required to use bindingFailureConditions"))
	case len(failures) == 0 && len(conds) > 0:
		errs = append(errs, field.Invalid(p.Child("bindingFailureConditions"), failures, "bindingFailureConditions are required to use bindingConditions"))
	}
	return errs
}

// validateConditions checks meta/v1 conditions as kube-apiserver does
// (validation.ValidateConditions), at most max of them.
func validateConditions(cs []meta.Condition, max int, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(cs) > max {
		errs = append(errs, field.TooMany(p, len(cs), max))
	}
	return append(errs, validation.ValidateConditions(cs, p)...)
}
