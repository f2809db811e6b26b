package leaseholdtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how the code under test ended it:
// Skip and Fatal stop the goroutine, as the testing package's do.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) { r.skipped, r.msg = true, fmt.Sprint(args...); runtime.Goexit() }

func (r *recorder) Fatal(args ...any) { r.failed, r.msg = true, fmt.Sprint(args...); runtime.Goexit() }

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run runs f with a recorder of t in a goroutine of its own and returns
// the recorder once f returns or stops.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// fakeEngine stands in for Docker and records what it was asked.
type fakeEngine struct {
	pingErr, startErr error
	hasImage          bool
	calls             []string
}

func (e *fakeEngine) Ping(context.Context) error {
	e.calls = append(e.calls, "ping")
	return e.pingErr
}

func (e *fakeEngine) HasImage(_ context.Context, image string) bool {
	e.calls = append(e.calls, "has "+image)
	return e.hasImage
}

func (e *fakeEngine) Start(_ context.Context, _ testing.TB, kind, image string, n int) ([]string, error) {
	e.calls = append(e.calls, fmt.Sprintf("start %s %s x%d", kind, image, n))
	if e.startErr != nil {
		return nil, e.startErr
	}
	return []string{"127.0.0.1:1"}, nil
}

// unsetenv unsets key for the rest of t, restoring it afterwards.
func unsetenv(t *testing.T, key string) {
	if v, ok := os.LookupEnv(key); ok {
		t.Setenv(key, v) // registers the restore; forbids t.Parallel
		os.Unsetenv(key)
	}
}

// plainMachine unsets what this project's machines set for their own
// suites, and CI: the environment of a user's ordinary machine.
func plainMachine(t *testing.T) {
	for _, k := range []string{"TESTCONTAINERS_HOST_OVERRIDE", "TESTCONTAINERS_RYUK_DISABLED", "CI"} {
		unsetenv(t, k)
	}
}

// TestContainerMessage: the advice names what a user can do: pull the
// image by its name, the variable that names another, and the host
// override; it names nothing of this project's own tree.
func TestContainerMessage(t *testing.T) {
	for kind, v := range map[string]string{"etcd": "LEASEHOLD_ETCD_IMAGE", "zookeeper": "LEASEHOLD_ZOOKEEPER_IMAGE",
		"consul": "LEASEHOLD_CONSUL_IMAGE"} {
		image := "registry.example/" + kind + ":1.2"
		msg := containerMessage(kind, image, errors.New("boom"))
		for _, want := range []string{"docker pull " + image, v, "TESTCONTAINERS_HOST_OVERRIDE", "boom", kind} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: message does not name %q:\n%s", kind, want, msg)
			}
		}
		for _, not := range []string{"make images", "testcontainers.env", "integration suite"} {
			if strings.Contains(msg, not) {
				t.Errorf("%s: message names the project's own %q:\n%s", kind, not, msg)
			}
		}
	}
}

// TestContainerNeedsNoVariables: on a machine with none of the variables
// set, the kit goes to the engine and starts the store; it neither skips
// nor fails for want of TESTCONTAINERS_HOST_OVERRIDE or a disabled reaper.
func TestContainerNeedsNoVariables(t *testing.T) {
	plainMachine(t)
	e := &fakeEngine{}
	var addrs []string
	r := run(t, func(tb testing.TB) { addrs = startStore(tb, e, "etcd", "etcd:x", 1) })
	if r.skipped || r.failed {
		t.Fatalf("skipped %v, failed %v, with no variable set: %s", r.skipped, r.failed, r.msg)
	}
	if got := strings.Join(e.calls, ", "); got != "ping, start etcd etcd:x x1" || len(addrs) != 1 {
		t.Fatalf("engine calls %q, addresses %v; want a ping and a start", got, addrs)
	}
}

// TestContainerWithoutDocker: no engine skips the test with the advice,
// and under CI=true fails it; the engine is asked before anything else.
func TestContainerWithoutDocker(t *testing.T) {
	plainMachine(t)
	for _, ci := range []bool{false, true} {
		if ci {
			t.Setenv("CI", "true")
		}
		e := &fakeEngine{pingErr: errors.New("no socket")}
		r := run(t, func(tb testing.TB) { startStore(tb, e, "zookeeper", "zookeeper:x", 1) })
		if r.skipped == ci || r.failed != ci {
			t.Errorf("CI=%v: skipped %v, failed %v; want a skip, or a failure under CI", ci, r.skipped, r.failed)
		}
		if !strings.Contains(r.msg, "no Docker engine answers: no socket") || !strings.Contains(r.msg, "docker pull zookeeper:x") {
			t.Errorf("CI=%v: message does not say what failed and what to do:\n%s", ci, r.msg)
		}
		if got := strings.Join(e.calls, ", "); got != "ping" {
			t.Errorf("CI=%v: engine calls %q, want only a ping", ci, got)
		}
	}
}

// TestContainerStartFails: a start that fails for want of the image (not
// held, not pulled) skips; with the image there, it fails the test.
func TestContainerStartFails(t *testing.T) {
	plainMachine(t)
	for _, held := range []bool{false, true} {
		e := &fakeEngine{startErr: errors.New("pull access denied"), hasImage: held}
		r := run(t, func(tb testing.TB) { startStore(tb, e, "consul", "consul:x", 3) })
		if r.skipped == held || r.failed != held {
			t.Errorf("image held %v: skipped %v, failed %v", held, r.skipped, r.failed)
		}
		for _, want := range []string{"pull access denied", "docker pull consul:x", "LEASEHOLD_CONSUL_IMAGE", "TESTCONTAINERS_HOST_OVERRIDE"} {
			if !strings.Contains(r.msg, want) {
				t.Errorf("image held %v: message does not name %q:\n%s", held, want, r.msg)
			}
		}
	}
}
