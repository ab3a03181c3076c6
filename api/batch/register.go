package batch

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds the batch/v1 kinds to s with the names, short names,
// categories and subresources kubectl expects: jobs and cronjobs (cj),
// both namespaced, with status, in category "all". It panics if a kind is
// already registered.
func Register(s *scheme.Scheme) {
	gv := meta.GroupVersion{Group: GroupName, Version: Version}
	all := []string{"all"}
	s.MustRegister(
		scheme.Type{
			Kind: gv.WithKind("Job"), Resource: "jobs", Namespaced: true,
			Categories: all, Subresources: []string{"status"},
			New:      func() meta.Object { return &Job{} },
			NewList:  func() meta.ListObject { return &JobList{} },
			Default:  func(o meta.Object) { DefaultJob(o.(*Job)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateJob(o.(*Job)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateJobUpdate(o.(*Job), old.(*Job))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("CronJob"), Resource: "cronjobs", Namespaced: true,
			ShortNames: []string{"cj"}, Categories: all, Subresources: []string{"status"},
			New:      func() meta.Object { return &CronJob{} },
			NewList:  func() meta.ListObject { return &CronJobList{} },
			Default:  func(o meta.Object) { DefaultCronJob(o.(*CronJob)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateCronJob(o.(*CronJob)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateCronJobUpdate(o.(*CronJob), old.(*CronJob))
			},
		},
	)
}
