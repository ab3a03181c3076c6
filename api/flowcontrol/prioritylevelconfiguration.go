package flowcontrol

import "github.com/orkit/orkit/api/meta"

// Defaults of PriorityLevelConfiguration, as kube-apiserver's.
const (
	DefaultNominalConcurrencyShares int32 = 30
	DefaultQueues                   int32 = 64
	DefaultHandSize                 int32 = 8
	DefaultQueueLengthLimit         int32 = 50
	// MaxQueues is the largest queues value allowed.
	MaxQueues int32 = 10_000_000
)

// PriorityLevelConfiguration is one priority level: its share of the
// server's concurrency and what happens to requests beyond it.
type PriorityLevelConfiguration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PriorityLevelConfigurationSpec   `json:"spec,omitempty"`
	Status          PriorityLevelConfigurationStatus `json:"status,omitempty"`
}

// PriorityLevelConfigurationList is a list of PriorityLevelConfigurations.
type PriorityLevelConfigurationList = meta.List[PriorityLevelConfiguration]

// PriorityLevelEnablement says whether a level is limited or exempt.
type PriorityLevelEnablement string

// The enablements.
const (
	PriorityLevelEnablementExempt  PriorityLevelEnablement = "Exempt"
	PriorityLevelEnablementLimited PriorityLevelEnablement = "Limited"
)

// PriorityLevelConfigurationSpec is a level's configuration: Limited is
// set exactly when Type is Limited; Exempt only when Type is Exempt.
type PriorityLevelConfigurationSpec struct {
	Type    PriorityLevelEnablement            `json:"type"`
	Limited *LimitedPriorityLevelConfiguration `json:"limited,omitempty"`
	Exempt  *ExemptPriorityLevelConfiguration  `json:"exempt,omitempty"`
}

// LimitedPriorityLevelConfiguration is the concurrency of a limited level.
type LimitedPriorityLevelConfiguration struct {
	// NominalConcurrencyShares is the level's share of the server's
	// concurrency limit (nil is defaulted to 30; 0 is allowed).
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares"`
	// LimitResponse is what happens to requests over the limit.
	LimitResponse LimitResponse `json:"limitResponse,omitempty"`
	// LendablePercent of the nominal concurrency other levels may borrow.
	LendablePercent *int32 `json:"lendablePercent,omitempty"`
	// BorrowingLimitPercent caps what the level may borrow (nil: no cap).
	BorrowingLimitPercent *int32 `json:"borrowingLimitPercent,omitempty"`
}

// ExemptPriorityLevelConfiguration is the (accounting-only) concurrency
// of the exempt level.
type ExemptPriorityLevelConfiguration struct {
	NominalConcurrencyShares *int32 `json:"nominalConcurrencyShares,omitempty"`
	LendablePercent          *int32 `json:"lendablePercent,omitempty"`
}

// LimitResponseType is Queue or Reject.
type LimitResponseType string

// The limit responses.
const (
	LimitResponseTypeQueue  LimitResponseType = "Queue"
	LimitResponseTypeReject LimitResponseType = "Reject"
)

// LimitResponse says whether excess requests queue (with Queuing) or are
// rejected at once (429).
type LimitResponse struct {
	Type    LimitResponseType     `json:"type"`
	Queuing *QueuingConfiguration `json:"queuing,omitempty"`
}

// QueuingConfiguration is the shuffle-sharded queues of a level.
type QueuingConfiguration struct {
	Queues           int32 `json:"queues"`
	HandSize         int32 `json:"handSize"`
	QueueLengthLimit int32 `json:"queueLengthLimit"`
}

// PriorityLevelConfigurationStatus is the observed state of a level.
type PriorityLevelConfigurationStatus struct {
	Conditions []PriorityLevelConfigurationCondition `json:"conditions,omitempty"`
}

// PriorityLevelConfigurationConditionType names a level's condition.
type PriorityLevelConfigurationConditionType string

// PriorityLevelConfigurationCondition is one condition of a level.
type PriorityLevelConfigurationCondition struct {
	Type               PriorityLevelConfigurationConditionType `json:"type,omitempty"`
	Status             ConditionStatus                         `json:"status,omitempty"`
	LastTransitionTime meta.Time                               `json:"lastTransitionTime,omitempty"`
	Reason             string                                  `json:"reason,omitempty"`
	Message            string                                  `json:"message,omitempty"`
}

// SetDefaultsPriorityLevelConfiguration fills kube-apiserver's v1
// defaults: limited levels get 30 nominal shares and 0 lendable percent
// when unset, queuing gets 64 queues, hand size 8 and 50 per queue when
// zero; the exempt block gets 0 and 0.
func SetDefaultsPriorityLevelConfiguration(pl *PriorityLevelConfiguration) {
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr(DefaultNominalConcurrencyShares)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr(int32(0))
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = DefaultHandSize
			}
			if q.Queues == 0 {
				q.Queues = DefaultQueues
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = DefaultQueueLengthLimit
			}
		}
	}
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr(int32(0))
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr(int32(0))
		}
	}
}

func ptr[T any](v T) *T { return &v }
