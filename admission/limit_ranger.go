package admission

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// LimitRangerName is the name of the LimitRanger plugin.
const LimitRangerName = "LimitRanger"

// LimitRangerAnnotation records on a pod which defaults LimitRanger set
// ("LimitRanger plugin set: cpu request for container web").
const LimitRangerAnnotation = "kubernetes.io/limit-ranger"

// maxMilliValue is the largest value whose milli value fits an int64.
const maxMilliValue = math.MaxInt64 / 1000

// LimitRangeLister lists the LimitRange objects of a namespace from a
// cache. The returned objects are shared: the plugin never changes them.
// Implementations must be safe for concurrent use.
type LimitRangeLister interface {
	LimitRanges(namespace string) []*core.LimitRange
}

// LimitRangeListerFunc adapts a function to LimitRangeLister.
type LimitRangeListerFunc func(namespace string) []*core.LimitRange

// LimitRanges calls f.
func (f LimitRangeListerFunc) LimitRanges(namespace string) []*core.LimitRange { return f(namespace) }

// LimitRanger applies and enforces the LimitRange objects of a namespace,
// as Kubernetes' LimitRanger plugin does.
//
// As a Mutator it gives every container and init container of a new pod
// the Container default limits and defaultRequest requests it does not
// set, and records what it set in the kubernetes.io/limit-ranger
// annotation. As a Validator it enforces min, max and
// maxLimitRequestRatio per Container and per Pod on new pods, and min and
// max storage on PersistentVolumeClaims (created or updated), refusing
// with a 403 whose message lists every violation
// (`maximum cpu usage per Container is 1, but limit is 2`).
//
// Pod updates pass: containers cannot change after creation, and checking
// them would block status updates, which is why Kubernetes stopped doing
// it. Subresources pass, except pods/resize, whose new resources are
// validated (not defaulted): an in-place resize may not leave the limits.
//
// A LimitRanger holds no state of its own and is safe for concurrent use.
type LimitRanger struct {
	Handler
	lister LimitRangeLister
}

var (
	_ Mutator   = (*LimitRanger)(nil)
	_ Validator = (*LimitRanger)(nil)
)

// NewLimitRanger returns the plugin reading limit ranges from lister.
func NewLimitRanger(lister LimitRangeLister) *LimitRanger {
	return &LimitRanger{
		Handler: Handler{PluginName: LimitRangerName, Operations: []Operation{Create, Update}},
		lister:  lister,
	}
}

var (
	podsResource = meta.GroupResource{Resource: "pods"}
	pvcsResource = meta.GroupResource{Resource: "persistentvolumeclaims"}
)

// applies reports whether LimitRanger acts on a.
func (l *LimitRanger) applies(a *Attributes) bool {
	if a.Object == nil {
		return false
	}
	if a.Subresource == "resize" {
		// An in-place resize changes the containers' resources: they must
		// stay within the limits, as on create (kube-apiserver checks it).
		return a.Resource.GroupResource() == podsResource && a.Operation == Update
	}
	if a.Subresource != "" {
		return false
	}
	switch a.Resource.GroupResource() {
	case podsResource:
		return a.Operation == Create
	case pvcsResource:
		return true
	}
	return false
}

// Admit sets container defaults on a new pod.
func (l *LimitRanger) Admit(_ context.Context, a *Attributes) error {
	if !l.applies(a) || a.Resource.GroupResource() != podsResource || a.Subresource != "" {
		return nil
	}
	pod, ok := a.Object.(*core.Pod)
	if !ok {
		return wrongType(a, "Pod")
	}
	for _, lr := range l.lister.LimitRanges(a.Namespace) {
		SetContainerDefaults(lr, pod)
	}
	return nil
}

// Validate enforces the limits on a new or resized pod, or a claim.
func (l *LimitRanger) Validate(_ context.Context, a *Attributes) error {
	if !l.applies(a) {
		return nil
	}
	var check func(*core.LimitRange) error
	switch obj := a.Object.(type) {
	case *core.Pod:
		check = func(lr *core.LimitRange) error { return ValidatePodLimits(lr, obj) }
	case *core.PersistentVolumeClaim:
		check = func(lr *core.LimitRange) error { return ValidateClaimLimits(lr, obj) }
	default:
		if a.Resource.GroupResource() == podsResource {
			return wrongType(a, "Pod")
		}
		return wrongType(a, "PersistentVolumeClaim")
	}
	for _, lr := range l.lister.LimitRanges(a.Namespace) {
		if err := check(lr); err != nil {
			return forbidden(a, err)
		}
	}
	return nil
}

// SetContainerDefaults gives every container and init container of pod the
// Container default limits and defaultRequest requests of lr that it does
// not set, and records them in the LimitRangerAnnotation. It changes pod
// in place and never fails.
func SetContainerDefaults(lr *core.LimitRange, pod *core.Pod) {
	requests, limits := core.ResourceList{}, core.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type != core.LimitTypeContainer {
			continue
		}
		for k, v := range item.DefaultRequest {
			requests[k] = v.DeepCopy()
		}
		for k, v := range item.Default {
			limits[k] = v.DeepCopy()
		}
	}
	var notes []string
	for i := range pod.Spec.Containers {
		notes = mergeDefaults(&pod.Spec.Containers[i], requests, limits, "container", notes)
	}
	for i := range pod.Spec.InitContainers {
		notes = mergeDefaults(&pod.Spec.InitContainers[i], requests, limits, "init container", notes)
	}
	if len(notes) == 0 {
		return
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[LimitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
}

// mergeDefaults fills c's missing requests and limits and appends a note
// for each kind it set.
func mergeDefaults(c *core.Container, requests, limits core.ResourceList, what string, notes []string) []string {
	fill := func(dst *core.ResourceList, src core.ResourceList) []string {
		var set []string
		for _, k := range sortedKeys(src) {
			if _, ok := (*dst)[k]; ok {
				continue
			}
			if *dst == nil {
				*dst = core.ResourceList{}
			}
			(*dst)[k] = src[k].DeepCopy()
			set = append(set, string(k))
		}
		return set
	}
	if set := fill(&c.Resources.Requests, requests); len(set) > 0 {
		notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(set, ", "), what, c.Name))
	}
	if set := fill(&c.Resources.Limits, limits); len(set) > 0 {
		notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(set, ", "), what, c.Name))
	}
	return notes
}

// ValidatePodLimits checks pod against the Container and Pod limits of lr
// and returns every violation, or nil.
func ValidatePodLimits(lr *core.LimitRange, pod *core.Pod) error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		switch item.Type {
		case core.LimitTypeContainer:
			for _, c := range allContainers(pod) {
				errs = append(errs, checkItem(item, c.Resources.Requests, c.Resources.Limits)...)
			}
		case core.LimitTypePod:
			errs = append(errs, checkItem(item, core.PodRequests(pod), podLimits(pod))...)
		}
	}
	return aggregate(errs)
}

// checkItem enforces min, max and the ratio of one limit item.
func checkItem(item core.LimitRangeItem, requests, limits core.ResourceList) []error {
	t := string(item.Type)
	var errs []error
	for _, k := range sortedKeys(item.Min) {
		errs = appendErr(errs, minConstraint(t, k, item.Min[k], requests, limits))
	}
	for _, k := range sortedKeys(item.Max) {
		errs = appendErr(errs, maxConstraint(t, k, item.Max[k], requests, limits))
	}
	for _, k := range sortedKeys(item.MaxLimitRequestRatio) {
		errs = appendErr(errs, ratioConstraint(t, k, item.MaxLimitRequestRatio[k], requests, limits))
	}
	return errs
}

// ValidateClaimLimits checks the storage request of pvc against the
// PersistentVolumeClaim min and max of lr and returns every violation.
func ValidateClaimLimits(lr *core.LimitRange, pvc *core.PersistentVolumeClaim) error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		if item.Type != core.LimitTypePersistentVolumeClaim {
			continue
		}
		t := string(item.Type)
		for _, k := range sortedKeys(item.Min) {
			errs = appendErr(errs, minConstraint(t, k, item.Min[k], pvc.Spec.Resources.Requests, nil))
		}
		for _, k := range sortedKeys(item.Max) {
			errs = appendErr(errs, maxRequestConstraint(t, k, item.Max[k], pvc.Spec.Resources.Requests))
		}
	}
	return aggregate(errs)
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// atCommonScale returns request, limit and enforced at a common precision:
// thousandths when none overflows, else whole units (as Kubernetes does).
func atCommonScale(req, lim, enforced resource.Quantity) (int64, int64, int64) {
	r, l, e := req.Value(), lim.Value(), enforced.Value()
	if r <= maxMilliValue && l <= maxMilliValue && e <= maxMilliValue {
		return req.MilliValue(), lim.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(t string, name core.ResourceName, enforced resource.Quantity, requests, limits core.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := atCommonScale(req, lim, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, t, enforced.String())
	case r < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	case hasLim && l < e:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, t, enforced.String(), lim.String())
	}
	return nil
}

func maxConstraint(t string, name core.ResourceName, enforced resource.Quantity, requests, limits core.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, e := atCommonScale(req, lim, enforced)
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, t, enforced.String())
	case l > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, t, enforced.String(), lim.String())
	case hasReq && r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	return nil
}

// maxRequestConstraint is the max of claims, which have only requests.
func maxRequestConstraint(t string, name core.ResourceName, enforced resource.Quantity, requests core.ResourceList) error {
	req, hasReq := requests[name]
	r, _, e := atCommonScale(req, resource.Quantity{}, enforced)
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, t, enforced.String())
	case r > e:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, t, enforced.String(), req.String())
	}
	return nil
}

func ratioConstraint(t string, name core.ResourceName, enforced resource.Quantity, requests, limits core.ResourceList) error {
	req, hasReq := requests[name]
	lim, hasLim := limits[name]
	r, l, _ := atCommonScale(req, lim, enforced)
	if !hasReq || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, t, enforced.String())
	}
	if !hasLim || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, t, enforced.String())
	}
	observed := float64(l) / float64(r)
	shown, maxRatio := observed, float64(enforced.Value())
	if enforced.Value() <= maxMilliValue {
		observed *= 1000
		maxRatio = float64(enforced.MilliValue())
	}
	if observed > maxRatio {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, t, enforced.String(), shown)
	}
	return nil
}
