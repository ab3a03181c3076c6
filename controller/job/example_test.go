package job_test

import (
	"fmt"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller/job"
)

func ExampleNewPod() {
	mode := batch.IndexedCompletion
	three := int32(3)
	j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: "work", Namespace: "default", UID: "1234"},
		Spec: batch.JobSpec{Completions: &three, CompletionMode: &mode, Template: core.PodTemplateSpec{
			Spec: core.PodSpec{RestartPolicy: core.RestartPolicyNever, Containers: []core.Container{{Name: "w", Image: "busybox"}}}}}}
	batch.DefaultJob(j)
	p := job.NewPod(j, 2)
	fmt.Println(p.GenerateName, p.Spec.Hostname, p.Annotations[batch.JobCompletionIndexAnnotation], p.Finalizers)
	fmt.Println(p.Spec.Containers[0].Env[0].Name, p.OwnerReferences[0].Kind)
	// Output:
	// work-2- work-2 2 [batch.kubernetes.io/job-tracking]
	// JOB_COMPLETION_INDEX Job
}
