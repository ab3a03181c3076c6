// Command inclusterlist is an in-cluster client-go program, run as a pod
// by compat's tests (the minicluster builds it into an image with
// --image): it builds its configuration with rest.InClusterConfig() —
// the kubernetes Service's address from KUBERNETES_SERVICE_HOST/PORT, the
// service-account token and CA the kubelet mounts — lists the pods of its
// own namespace, prints "OK <count>" or "ERR <status code> <message>" and
// exits 0 or 1.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

func main() {
	code, line := run()
	fmt.Println(line)
	os.Exit(code)
}

func run() (int, string) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return 2, "SETUP " + err.Error()
	}
	ns, err := os.ReadFile(namespaceFile)
	if err != nil {
		return 2, "SETUP " + err.Error()
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 2, "SETUP " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods(strings.TrimSpace(string(ns))).List(ctx, metav1.ListOptions{})
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			return 1, fmt.Sprintf("ERR %d %s", status.Status().Code, status.Status().Message)
		}
		return 1, "ERR 0 " + err.Error()
	}
	return 0, fmt.Sprintf("OK %d", len(pods.Items))
}
