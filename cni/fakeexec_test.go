package cni

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
)

// fakeCall is one recorded plugin invocation.
type fakeCall struct {
	Command     string
	Plugin      string
	IfName      string
	ContainerID string
	NetNS       string
	Stdin       map[string]any
}

// fakeExec plays the bridge, host-local, portmap and loopback plugins in
// memory so the LibCNI logic is testable without root. IP reservations are
// written as host-local does (dataDir/<network>/<ip> holding the ID), so
// ReclaimLeaked sees real files.
type fakeExec struct {
	version.PluginDecoder

	mu      sync.Mutex
	calls   []fakeCall
	fail    map[string]error // "COMMAND/plugin" -> error
	missing map[string]bool  // plugins FindInPath does not find
}

func newFakeExec() *fakeExec {
	return &fakeExec{fail: map[string]error{}, missing: map[string]bool{}}
}

func (f *fakeExec) failOn(cmd, plugin string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[cmd+"/"+plugin] = err
}

func (f *fakeExec) takeCalls() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func (f *fakeExec) FindInPath(plugin string, paths []string) (string, error) {
	if f.missing[plugin] || len(paths) == 0 {
		return "", fmt.Errorf("failed to find plugin %q in path %v", plugin, paths)
	}
	return path.Join(paths[0], plugin), nil
}

func (f *fakeExec) ExecPlugin(_ context.Context, pluginPath string, stdin []byte, environ []string) ([]byte, error) {
	env := map[string]string{}
	for _, e := range environ {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
	}
	var conf map[string]any
	if err := json.Unmarshal(stdin, &conf); err != nil {
		return nil, err
	}
	call := fakeCall{Command: env["CNI_COMMAND"], Plugin: path.Base(pluginPath), IfName: env["CNI_IFNAME"],
		ContainerID: env["CNI_CONTAINERID"], NetNS: env["CNI_NETNS"], Stdin: conf}
	f.mu.Lock()
	if call.Command != "VERSION" {
		f.calls = append(f.calls, call)
	}
	err := f.fail[call.Command+"/"+call.Plugin]
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	switch call.Command {
	case "VERSION":
		return []byte(`{"cniVersion":"1.0.0","supportedVersions":["0.3.1","0.4.0","1.0.0"]}`), nil
	case "ADD":
		return f.add(call, conf)
	case "DEL":
		if call.Plugin == "bridge" {
			return nil, releaseFake(conf, call.ContainerID)
		}
		return nil, nil
	case "CHECK":
		if _, ok := conf["prevResult"]; !ok {
			return nil, fmt.Errorf("CHECK without prevResult")
		}
		return nil, nil
	}
	return nil, fmt.Errorf("unknown command %q", call.Command)
}

func (f *fakeExec) add(call fakeCall, conf map[string]any) ([]byte, error) {
	switch call.Plugin {
	case "loopback":
		return []byte(`{"cniVersion":"1.0.0","interfaces":[{"name":"lo","sandbox":"` + call.NetNS +
			`"}],"ips":[{"interface":0,"address":"127.0.0.1/8"}]}`), nil
	case "bridge":
		ip, subnet, err := reserveFake(conf, call.ContainerID, call.IfName)
		if err != nil {
			return nil, err
		}
		gw := subnet.Addr().Next()
		return fmt.Appendf(nil, `{"cniVersion":"1.0.0","interfaces":[{"name":"br"},{"name":"veth1"},`+
			`{"name":%q,"mac":"02:00:00:00:00:01","sandbox":%q}],`+
			`"ips":[{"interface":2,"address":"%s/%d","gateway":"%s"}]}`,
			call.IfName, call.NetNS, ip, subnet.Bits(), gw), nil
	default: // chained plugins pass the previous result on
		prev, ok := conf["prevResult"]
		if !ok {
			return nil, fmt.Errorf("%s: no prevResult", call.Plugin)
		}
		return json.Marshal(prev)
	}
}

// ipamDir returns host-local's directory for the network in conf.
func ipamDir(conf map[string]any) (string, netip.Prefix, error) {
	ipam, _ := conf["ipam"].(map[string]any)
	dataDir, _ := ipam["dataDir"].(string)
	ranges, _ := ipam["ranges"].([]any)
	if dataDir == "" || len(ranges) == 0 {
		return "", netip.Prefix{}, fmt.Errorf("fake bridge needs ipam.dataDir and ranges")
	}
	first := ranges[0].([]any)[0].(map[string]any)
	subnet, err := netip.ParsePrefix(first["subnet"].(string))
	return filepath.Join(dataDir, conf["name"].(string)), subnet, err
}

func reserveFake(conf map[string]any, id, ifName string) (netip.Addr, netip.Prefix, error) {
	dir, subnet, err := ipamDir(conf)
	if err != nil {
		return netip.Addr{}, subnet, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return netip.Addr{}, subnet, err
	}
	for ip := subnet.Addr().Next().Next(); subnet.Contains(ip); ip = ip.Next() {
		f, err := os.OpenFile(filepath.Join(dir, ip.String()), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			continue
		}
		_, err = f.WriteString(id + "\r\n" + ifName)
		return ip, subnet, errorsJoin(err, f.Close())
	}
	return netip.Addr{}, subnet, fmt.Errorf("no IP addresses available in range set: %s", subnet)
}

func releaseFake(conf map[string]any, id string) error {
	dir, _, err := ipamDir(conf)
	if err != nil {
		return err
	}
	allocs, err := readAllocations(dir)
	if err != nil {
		return err
	}
	for _, a := range allocs {
		if a.owner == id {
			if err := os.Remove(a.path); err != nil {
				return err
			}
		}
	}
	return nil
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func parseResult(data []byte) (types.Result, error) { return types100.NewResult(data) }
