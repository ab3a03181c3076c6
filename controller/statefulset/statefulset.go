package statefulset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// Config configures the StatefulSet controller; the zero value is usable.
type Config struct {
	// Workers is how many sets are reconciled at once; default 1.
	Workers int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller is the StatefulSet controller: a *controller.Controller
// (Run it, or add it to its Manager) whose reconciler keeps each set's
// pods and claims. It reads from the manager's shared informers of
// StatefulSets, Pods, PersistentVolumeClaims and ControllerRevisions and
// writes through the manager's client. Safe for concurrent use.
type Controller struct {
	*controller.Controller
	client    *client.Client
	sets      informer.Lister[*apps.StatefulSet]
	pods      informer.Lister[*core.Pod]
	claims    informer.Lister[*core.PersistentVolumeClaim]
	revisions informer.Lister[*apps.ControllerRevision]
	log       *slog.Logger
	now       func() time.Time
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the StatefulSet controller over m's shared informers of
// StatefulSets, Pods, PersistentVolumeClaims and ControllerRevisions,
// writing through m's client; add it to m (m.Add) to run it while m leads,
// or Run it. It fails with ErrInvalidConfig without a manager, and when an
// informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	setInf, err := controller.InformerFor[apps.StatefulSet](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	pvcInf, err := controller.InformerFor[core.PersistentVolumeClaim](m, "")
	if err != nil {
		return nil, err
	}
	revInf, err := controller.InformerFor[apps.ControllerRevision](m, "")
	if err != nil {
		return nil, err
	}
	c := &Controller{client: m.Client(), sets: setInf.Lister(), pods: podInf.Lister(), claims: pvcInf.Lister(),
		revisions: revInf.Lister(), log: cfg.Logger.With("controller", "statefulset"), now: time.Now}
	ctrl, err := controller.New("statefulset", c, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	owner := controller.OwnerKind{Group: apps.GroupName, Kind: "StatefulSet"}
	controller.WatchObjects(ctrl, setInf)
	controller.WatchOwned(ctrl, podInf, owner)
	controller.Watch(ctrl, podInf, controller.EnqueueSelectingOwners(setInf.Lister(),
		func(set *apps.StatefulSet) *meta.LabelSelector { return set.Spec.Selector },
		func(set *apps.StatefulSet, p *core.Pod) bool { _, named := ParseOrdinal(set, p.Name); return named }))
	controller.WatchOwned(ctrl, revInf, owner)
	c.Controller = ctrl
	return c, nil
}

// Reconcile brings the set named by req one step closer to its spec and
// writes its status. It is idempotent; errors are retried by the
// controller, an unusable selector is terminal.
func (c *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	set, err := c.sets.Get(req.Namespace, req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, nil
	}
	if err != nil || set.DeletionTimestamp != nil {
		return controller.Result{}, err
	}
	sel, err := labels.SelectorFromLabelSelector(set.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(set.Spec.Template.Labels)) {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("%w: %s/%s: %v", ErrInvalidSelector, set.Namespace, set.Name, err))
	}
	revs := c.ownedRevisions(set)
	current, update, err := c.syncRevisions(ctx, set, revs)
	if err != nil {
		return controller.Result{}, err
	}
	curTmpl, err := templateOf(current)
	if err != nil {
		return controller.Result{}, controller.TerminalError(err)
	}
	pods, err := c.claimPods(ctx, set, sel)
	if err != nil {
		return controller.Result{}, err
	}
	s := &pass{c: c, set: set, pods: pods, current: current, update: update, curTmpl: curTmpl}
	if err := s.run(ctx); err != nil {
		return controller.Result{}, err
	}
	requeue, err := c.writeStatus(ctx, set, c.ownedPods(set, sel), current, update)
	if err != nil {
		return controller.Result{}, err
	}
	live := map[string]bool{current.Name: true, update.Name: true}
	for _, p := range pods {
		live[p.Labels[apps.ControllerRevisionHashLabelKey]] = true
	}
	if err := c.trimHistory(ctx, set, revs, live); err != nil {
		return controller.Result{}, err
	}
	return controller.Result{RequeueAfter: requeue}, nil
}

// ownedPods returns the set's pods by ordinal: those it controls whose
// name carries an ordinal of the set.
func (c *Controller) ownedPods(set *apps.StatefulSet, sel labels.Selector) map[int]*core.Pod {
	out := map[int]*core.Pod{}
	for _, p := range c.pods.Namespace(set.Namespace).List(sel) {
		if !isControlledBy(&p.ObjectMeta, set.UID) {
			continue
		}
		if ord, ok := ParseOrdinal(set, p.Name); ok {
			out[ord] = p
		}
	}
	return out
}

// writeStatus computes the set's status from its pods and writes it when
// it changed. It returns how long until a ready pod becomes available
// (minReadySeconds), 0 when none is waiting.
func (c *Controller) writeStatus(ctx context.Context, set *apps.StatefulSet, pods map[int]*core.Pod, current, update *apps.ControllerRevision) (time.Duration, error) {
	st := apps.StatefulSetStatus{ObservedGeneration: set.Generation, CollisionCount: set.Status.CollisionCount,
		CurrentRevision: current.Name, UpdateRevision: update.Name, Conditions: set.Status.Conditions}
	now := meta.NewTime(c.now())
	var requeue time.Duration
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		st.Replicas++
		if runningAndReady(p) {
			st.ReadyReplicas++
			if available(p, set.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			} else {
				requeue = time.Duration(set.Spec.MinReadySeconds) * time.Second
			}
		}
		if p.Labels[apps.ControllerRevisionHashLabelKey] == current.Name {
			st.CurrentReplicas++
		}
		if p.Labels[apps.ControllerRevisionHashLabelKey] == update.Name {
			st.UpdatedReplicas++
		}
	}
	want := *set.Spec.Replicas
	if st.UpdatedReplicas == want && st.ReadyReplicas == want && st.Replicas == want {
		st.CurrentRevision, st.CurrentReplicas = update.Name, st.UpdatedReplicas
	}
	if reflect.DeepEqual(st, set.Status) {
		return requeue, nil
	}
	next := meta.DeepCopy(set)
	next.Status = st
	_, err := client.For[apps.StatefulSet](c.client, set.Namespace).UpdateStatus(ctx, next)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("update status of %s/%s: %w", set.Namespace, set.Name, err)
	}
	return requeue, nil
}

// pass is one pass over a set's pods.
type pass struct {
	c               *Controller
	set             *apps.StatefulSet
	pods            map[int]*core.Pod
	current, update *apps.ControllerRevision
	curTmpl         *core.PodTemplateSpec
}

func (s *pass) ordered() bool { return s.set.Spec.PodManagementPolicy != apps.ParallelPodManagement }

func (s *pass) rangeOf() (start, end int) {
	if s.set.Spec.Ordinals != nil {
		start = int(s.set.Spec.Ordinals.Start)
	}
	return start, start + int(*s.set.Spec.Replicas)
}

func (s *pass) partition() int {
	if ru := s.set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return int(*ru.Partition)
	}
	return 0
}

// run creates missing pods, deletes condemned ones and rolls updates;
// with OrderedReady it stops at the first pod that is not yet Running
// and Ready (informer events bring it back).
func (s *pass) run(ctx context.Context) error {
	waitUp, err := s.scaleUp(ctx)
	if err != nil || (waitUp && s.ordered()) {
		return err
	}
	waitDown, err := s.scaleDown(ctx)
	if err != nil || waitUp || waitDown {
		return err
	}
	if s.set.Spec.UpdateStrategy.Type == apps.OnDeleteStatefulSetStrategyType {
		return nil
	}
	return s.rollingUpdate(ctx)
}

// scaleUp walks the ordinals in range in order, creating claims and
// pods that are missing and replacing failed pods. done means it must
// wait before going further.
func (s *pass) scaleUp(ctx context.Context) (done bool, err error) {
	start, end := s.rangeOf()
	waiting := false
	for ord := start; ord < end; ord++ {
		if err := s.syncClaimOwners(ctx, ord, nil); err != nil {
			return true, err
		}
		pod := s.pods[ord]
		switch {
		case pod == nil:
			if err := s.createPod(ctx, ord); err != nil {
				return true, err
			}
			waiting = true
		case pod.DeletionTimestamp != nil:
			waiting = true
		case core.IsPodTerminal(pod):
			if err := s.deletePod(ctx, pod); err != nil {
				return true, err
			}
			waiting = true
		case !runningAndReady(pod):
			waiting = true
		}
		if waiting && s.ordered() {
			return true, nil
		}
	}
	return waiting, nil
}

// scaleDown deletes pods beyond the range, highest ordinal first; with
// OrderedReady one at a time, each gone before the next goes, and none
// while an unhealthy pod stands before it (nextCondemned).
func (s *pass) scaleDown(ctx context.Context) (done bool, err error) {
	start, end := s.rangeOf()
	ords, wait := nextCondemned(s.pods, start, end, s.ordered())
	for _, ord := range ords {
		pod := s.pods[ord]
		if err := s.syncClaimOwners(ctx, ord, pod); err != nil {
			return true, err
		}
		s.c.log.Info("deleting condemned pod", "set", s.set.Namespace+"/"+s.set.Name, "pod", pod.Name)
		if err := s.deletePod(ctx, pod); err != nil {
			return true, err
		}
	}
	return wait, nil
}

// nextCondemned returns the ordinals of the pods beyond [start, end) to
// delete now, highest first, and whether the scale-down is still under
// way. In parallel mode that is every condemned pod not already being
// deleted. With OrderedReady (ordered) it is at most one, as
// kube's controller does: none while a condemned pod is terminating, and
// none while a condemned pod that is not Running and Ready is not the
// first unhealthy pod (the lowest-ordinal one, in range first), so a
// scale-down halts behind an unhealthy pod except for that pod itself.
func nextCondemned(pods map[int]*core.Pod, start, end int, ordered bool) (ords []int, wait bool) {
	var condemned, inRange []int
	for ord := range pods {
		if ord < start || ord >= end {
			condemned = append(condemned, ord)
		} else {
			inRange = append(inRange, ord)
		}
	}
	if len(condemned) == 0 {
		return nil, false
	}
	slices.Sort(inRange)
	slices.Sort(condemned)
	firstUnhealthy := -1
	for _, ord := range append(inRange, condemned...) {
		if p := pods[ord]; !runningAndReady(p) || p.DeletionTimestamp != nil {
			firstUnhealthy = ord
			break
		}
	}
	slices.Reverse(condemned)
	for _, ord := range condemned {
		pod := pods[ord]
		switch {
		case !ordered:
			if pod.DeletionTimestamp == nil {
				ords = append(ords, ord)
			}
		case pod.DeletionTimestamp != nil:
			return nil, true
		case !runningAndReady(pod) && ord != firstUnhealthy:
			return nil, true
		default:
			return []int{ord}, true
		}
	}
	return ords, true
}

// rollingUpdate replaces, from the highest ordinal down to the
// partition, the first pod not at the update revision, once every pod is
// Running and Ready.
func (s *pass) rollingUpdate(ctx context.Context) error {
	start, end := s.rangeOf()
	for ord := end - 1; ord >= start+s.partition(); ord-- {
		pod := s.pods[ord]
		if pod == nil || pod.DeletionTimestamp != nil {
			return nil
		}
		if pod.Labels[apps.ControllerRevisionHashLabelKey] != s.update.Name {
			s.c.log.Info("replacing pod for the update revision", "pod", s.set.Namespace+"/"+pod.Name, "revision", s.update.Name)
			return s.deletePod(ctx, pod)
		}
	}
	return nil
}

func (s *pass) createPod(ctx context.Context, ord int) error {
	for i := range s.set.Spec.VolumeClaimTemplates {
		if err := s.ensureClaim(ctx, &s.set.Spec.VolumeClaimTemplates[i], ord); err != nil {
			return err
		}
	}
	start, _ := s.rangeOf()
	tmpl, rev := &s.set.Spec.Template, s.update.Name
	if ord-start < s.partition() {
		tmpl, rev = s.curTmpl, s.current.Name
	}
	pod := newPod(s.set, tmpl, rev, ord)
	_, err := client.For[core.Pod](s.c.client, s.set.Namespace).Create(ctx, pod)
	if apierrors.IsAlreadyExists(err) {
		return nil // our cache lags; its event will bring us back
	}
	if err != nil {
		return fmt.Errorf("create pod %s/%s: %w", s.set.Namespace, pod.Name, err)
	}
	s.c.log.Info("created pod", "pod", s.set.Namespace+"/"+pod.Name, "revision", rev)
	return nil
}

func (s *pass) ensureClaim(ctx context.Context, t *core.PersistentVolumeClaim, ord int) error {
	name := ClaimName(s.set, t.Name, ord)
	if _, err := s.c.claims.Get(s.set.Namespace, name); err == nil {
		return nil
	}
	_, err := client.For[core.PersistentVolumeClaim](s.c.client, s.set.Namespace).Create(ctx, newClaim(s.set, t, ord))
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create claim %s/%s: %w", s.set.Namespace, name, err)
	}
	return nil
}

func (s *pass) deletePod(ctx context.Context, pod *core.Pod) error {
	uid := pod.UID
	err := client.For[core.Pod](s.c.client, pod.Namespace).Delete(ctx, pod.Name, &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}
