package containerd_test

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	ctrd "github.com/orkit/orkit/cri/containerd"
	"github.com/orkit/orkit/internal/testenv"
)

// benchPods is how many pods each measurement starts.
const benchPods = 50

// BenchmarkPodStart measures one pod (sandbox + one container) from
// RunPodSandbox to the container running: 50 pods one after another, 50
// pods 10 at a time, and, as the floor, `ctr run -d` of the same image on
// the same private containerd (one container, not two: no pause), one
// after another and 10 at a time; each with containerd's root on disk and on
// a tmpfs (which removes its database's fsync cost). Run once: go test -run '^$' -bench
// PodStart -benchtime 1x ./cri/containerd. It reports p50 and p99 in ms.
func BenchmarkPodStart(b *testing.B) {
	b.Run("disk", func(b *testing.B) { benchPodStart(b, testenv.New(b)) })
	b.Run("tmpfs", func(b *testing.B) { benchPodStart(b, testenv.New(b, testenv.TmpfsRoot())) })
}

// benchPodStart runs the three measurements on one private containerd.
func benchPodStart(b *testing.B, env *testenv.Env) {
	ctx := context.Background()
	rt, err := ctrd.New(ctx, env.Address, ctrd.WithNamespace(env.Namespace), ctrd.WithStateDir(env.StateDir))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	run := 0
	b.Run("sequential", func(b *testing.B) {
		for range b.N {
			run++
			cpu := processCPU()
			report(b, startPods(b, rt, fmt.Sprintf("seq%d", run), 1))
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/benchPods, "client-cpu-ms/pod")
		}
	})
	b.Run("concurrent10", func(b *testing.B) {
		for range b.N {
			run++
			cpu := processCPU()
			report(b, startPods(b, rt, fmt.Sprintf("par%d", run), 10))
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/benchPods, "client-cpu-ms/pod")
		}
	})
	b.Run("ctr-run-floor", func(b *testing.B) {
		for range b.N {
			run++
			report(b, ctrRuns(b, env, fmt.Sprintf("ctr%d", run), 1))
		}
	})
	b.Run("ctr-run-floor-concurrent10", func(b *testing.B) {
		for range b.N {
			run++
			report(b, ctrRuns(b, env, fmt.Sprintf("ctrpar%d", run), 10))
		}
	})
}

// startPods starts benchPods pods with the given parallelism, returns each
// pod's start latency and removes them (untimed).
func startPods(b *testing.B, rt *ctrd.Runtime, prefix string, parallel int) []time.Duration {
	ctx := context.Background()
	logDir := b.TempDir()
	lat := make([]time.Duration, benchPods)
	ids := make([]string, benchPods)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	b.ResetTimer()
	for i := range benchPods {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cfg := podConfig(fmt.Sprintf("%s-%d", prefix, i), logDir)
			start := time.Now()
			sb, err := rt.RunPodSandbox(ctx, cfg)
			if err == nil {
				ids[i] = sb
				var id string
				id, err = rt.CreateContainer(ctx, sb, helloConfig("app", "sleep", "1h"), cfg)
				if err == nil {
					err = rt.StartContainer(ctx, id)
				}
			}
			lat[i] = time.Since(start)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	for _, sb := range ids {
		if sb != "" {
			rt.RemovePodSandbox(ctx, sb)
		}
	}
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return lat
}

// ctrRuns times `ctr run -d` of the hello image, benchPods times with the
// given parallelism, and removes the containers (untimed).
func ctrRuns(b *testing.B, env *testenv.Env, prefix string, parallel int) []time.Duration {
	if _, err := exec.LookPath("ctr"); err != nil {
		b.Skip("ctr not on PATH")
	}
	ctr := func(args ...string) error {
		out, err := exec.Command("ctr", append([]string{"-a", env.Address, "-n", env.Namespace}, args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ctr %v: %v: %s", args, err, out)
		}
		return nil
	}
	lat := make([]time.Duration, benchPods)
	errs := make([]error, benchPods)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range benchPods {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			errs[i] = ctr("run", "-d", "--null-io", env.HelloImage, fmt.Sprintf("%s-%d", prefix, i), "/hello", "sleep", "1h")
			lat[i] = time.Since(start)
		}()
	}
	wg.Wait()
	b.StopTimer()
	for i := range benchPods {
		id := fmt.Sprintf("%s-%d", prefix, i)
		ctr("task", "kill", "-s", "SIGKILL", id)
		for range 100 {
			if ctr("task", "rm", id) == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		ctr("container", "rm", id)
	}
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return lat
}

func report(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) float64 {
		i := int(float64(len(lat))*q+0.999999) - 1
		if i < 0 {
			i = 0
		}
		return float64(lat[i].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(0, "ns/op")
}

// processCPU is this process's user+system CPU time so far (it includes
// the untimed pod removal).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
