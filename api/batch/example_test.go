package batch_test

import (
	"fmt"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func ExampleDefaultJob() {
	j := &batch.Job{
		ObjectMeta: meta.ObjectMeta{Name: "hi", Namespace: "default", UID: "5f0c"},
		Spec: batch.JobSpec{Template: core.PodTemplateSpec{Spec: core.PodSpec{
			RestartPolicy: core.RestartPolicyNever,
			Containers:    []core.Container{{Name: "hi", Image: "busybox", Command: []string{"echo", "hi"}}},
		}}},
	}
	batch.DefaultJob(j) // the API server does this after assigning the UID
	fmt.Println(*j.Spec.Completions, *j.Spec.Parallelism, *j.Spec.BackoffLimit, *j.Spec.CompletionMode)
	fmt.Println(j.Spec.Selector.MatchLabels)
	fmt.Println(len(batch.ValidateJob(j)))
	// Output:
	// 1 1 6 NonIndexed
	// map[batch.kubernetes.io/controller-uid:5f0c]
	// 0
}

func ExampleValidateCronJob() {
	cj := &batch.CronJob{
		ObjectMeta: meta.ObjectMeta{Name: "tick", Namespace: "default"},
		Spec: batch.CronJobSpec{Schedule: "*/5 * * *", JobTemplate: batch.JobTemplateSpec{Spec: batch.JobSpec{
			Template: core.PodTemplateSpec{Spec: core.PodSpec{RestartPolicy: core.RestartPolicyOnFailure,
				Containers: []core.Container{{Name: "tick", Image: "busybox"}}}},
		}}},
	}
	batch.DefaultCronJob(cj)
	for _, err := range batch.ValidateCronJob(cj) {
		fmt.Println(err)
	}
	// Output:
	// spec.schedule: Invalid value: "*/5 * * *": expected exactly 5 fields, found 4: [*/5 * * *]
}
