package storageversionmigration_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	svm "github.com/orkit/orkit/api/storagemigration"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/storageversionmigration"
	"github.com/orkit/orkit/internal/testnode"
)

// TestMigrations: a migration of a served resource records the list
// resourceVersion, rewrites the objects and ends Succeeded (Running
// True too, as kube's); one of a resource discovery does not list ends
// Failed once the grace period is over (the clock is moved past it); one
// of a resource without list and patch ends Failed at once; a finished
// migration is left alone.
func TestMigrations(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	for i := range 3 {
		_, err := client.For[core.ConfigMap](c, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}})
		require.NoError(t, err)
	}
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	mc, err := storageversionmigration.New(m, storageversionmigration.Config{Logger: testnode.QuietLogger(),
		Now: func() time.Time { return time.Now().Add(2 * time.Minute) }})
	require.NoError(t, err)
	require.NoError(t, m.Add(mc))
	testnode.RunManager(t, m)

	migrations := client.For[svm.StorageVersionMigration](c, "")
	create := func(name string, gr svm.GroupResource) {
		_, err := migrations.Create(ctx, &svm.StorageVersionMigration{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: svm.StorageVersionMigrationSpec{Resource: gr}})
		require.NoError(t, err)
	}
	create("configmaps", svm.GroupResource{Resource: "configmaps"})
	create("unknown", svm.GroupResource{Group: "example.com", Resource: "widgets"})
	create("bindings", svm.GroupResource{Resource: "bindings"})
	finished := func(name string, want svm.MigrationConditionType) *svm.StorageVersionMigration {
		var got *svm.StorageVersionMigration
		testnode.Eventually(t, 30*time.Second, func() bool {
			got, err = migrations.Get(ctx, name)
			return err == nil && got.Status.IsTrue(want)
		}, "migration %s %s", name, want)
		return got
	}

	done := finished("configmaps", svm.MigrationSucceeded)
	assert.True(t, done.Status.IsTrue(svm.MigrationRunning))
	assert.False(t, done.Status.IsTrue(svm.MigrationFailed))
	rv, err := strconv.ParseUint(done.Status.ResourceVersion, 10, 64)
	require.NoError(t, err, "status.resourceVersion is a list resourceVersion")
	assert.Positive(t, rv)
	assert.Regexp(t, `^The migration is running, \d+ objects verified migrated$`, done.Status.Condition(svm.MigrationRunning).Message)
	assert.Equal(t, storageversionmigration.ReasonSucceeded, done.Status.Condition(svm.MigrationSucceeded).Reason)

	failed := finished("unknown", svm.MigrationFailed)
	assert.Equal(t, "migration encountered unhandled error: resource does not exist in discovery", failed.Status.Condition(svm.MigrationFailed).Message)
	assert.Empty(t, failed.Status.ResourceVersion)
	failed = finished("bindings", svm.MigrationFailed)
	assert.Contains(t, failed.Status.Condition(svm.MigrationFailed).Message, "does not support the list and patch verbs")

	// Nothing more happens to a finished migration.
	again, err := migrations.Get(ctx, "configmaps")
	require.NoError(t, err)
	assert.Equal(t, done.ResourceVersion, again.ResourceVersion)
}

// TestNewWithoutManager fails with ErrInvalidConfig.
func TestNewWithoutManager(t *testing.T) {
	_, err := storageversionmigration.New(nil, storageversionmigration.Config{})
	assert.ErrorIs(t, err, storageversionmigration.ErrInvalidConfig)
}
