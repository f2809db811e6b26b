package storeurl

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/internal/driver"
	"github.com/leasehold/leasehold/internal/embedetcd"
)

// TestOpenRejects: a URL or Options wrong in themselves fail Open before
// any contact, with an error naming what is wrong, ErrInvalid unless the
// adapter found it; a missing file stays fs.ErrNotExist.
func TestOpenRejects(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		url  string
		opts Options
		want string
	}{
		{"redis://127.0.0.1:6379", Options{}, "unknown scheme"},
		{"etcd:///prefix", Options{}, "no host"},
		{"zk://127.0.0.1:2181/x?tick=soon", Options{}, "tick="},
		{"zk://127.0.0.1:2181/x?tick=0s", Options{}, "tick="}, // refused, not taken for the default
		{"zk://127.0.0.1:2181/x?tick=-2s", Options{}, "tick="},
		{"zk://127.0.0.1:2181/x", Options{CACert: "/nonexistent/ca.pem"}, "--cacert"},
		{"zk://127.0.0.1:99999/x", Options{}, "1..65535"},
		{"etcd://:2379/x", Options{}, "no host"},
		{"consul://127.0.0.1:0/x", Options{}, "1..65535"},
		{"etcd://127.0.0.1/x", Options{}, "no port"},
		{"consul://a:8500,b:8500/x", Options{}, "one agent address"},
		{"etcd://127.0.0.1:2379/x", Options{Cert: "c.pem"}, "--cert and --key"},
		{"etcd://127.0.0.1:2379/x", Options{CACert: "/nonexistent/ca.pem"}, "--cacert"},
		{"consul://127.0.0.1:8500/x", Options{Cert: "/nonexistent/c.pem", Key: "/nonexistent/k.pem"}, "--cert/--key"},
		{"zk://127.0.0.1:2181/bad//prefix", Options{}, "prefix"},
	}
	for _, c := range cases {
		o, err := Open(ctx, c.url, c.opts)
		if err == nil {
			o.Close()
			t.Errorf("Open(%q) succeeded, want an error about %s", c.url, c.want)
			continue
		}
		// The adapter checks the prefix, and its errors are not ErrInvalid.
		if !strings.Contains(err.Error(), c.want) || c.want != "prefix" && !errors.Is(err, ErrInvalid) {
			t.Errorf("Open(%q): %v, want an ErrInvalid that mentions %q", c.url, err, c.want)
		}
		if strings.Contains(c.url+c.opts.CACert, "nonexistent") && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q): %v, want it to wrap fs.ErrNotExist", c.url, err)
		}
	}
}

func TestPrefix(t *testing.T) {
	for _, c := range []struct{ path, lead, def, want string }{
		{"", "/", "/leasehold/", "/leasehold/"},
		{"/", "/", "/leasehold/", "/leasehold/"},
		{"/jobs", "/", "/d/", "/jobs/"},
		{"/jobs/", "", "d/", "jobs/"},
	} {
		if got := prefix(c.path, c.lead, c.def); got != c.want {
			t.Errorf("prefix(%q, %q) = %q, want %q", c.path, c.lead, got, c.want)
		}
	}
}

func TestOpenEtcd(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	host := strings.TrimPrefix(srv.Endpoint, "http://")
	o, err := Open(context.Background(), "etcd://"+host+"/jobs", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rec, err := driver.Of(o.Store).Get(ctx, "a"); err != nil || rec.Exists() || o.Store.Name() != "etcd" {
		t.Fatalf("Get on %s = %+v, %v", o.Store.Name(), rec, err)
	}
}

// TestOpenEtcdWrongPassword: with auth enabled on etcd, a wrong password
// fails Open with etcd's own reason, and the right one works.
func TestOpenEtcdWrongPassword(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admin, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, step := range []func() error{
		func() error { _, err := admin.UserAdd(ctx, "root", "right"); return err },
		func() error { _, err := admin.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := admin.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	url := "etcd://" + strings.TrimPrefix(srv.Endpoint, "http://") + "/jobs"
	if o, err := Open(ctx, url, Options{Username: "root", Password: "wrong"}); err == nil {
		o.Close()
		t.Fatal("Open with a wrong password succeeded")
	} else if !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("Open with a wrong password: %v, want etcd's authentication failure", err)
	}
	host := strings.TrimPrefix(srv.Endpoint, "http://")
	for _, c := range []struct {
		url  string
		opts Options
	}{
		{url, Options{Username: "root", Password: "right"}},
		{"etcd://root:right@" + host + "/jobs", Options{}},
		{"etcd://root@" + host + "/jobs", Options{Password: "right"}},
	} {
		o, err := Open(ctx, c.url, c.opts)
		if err != nil {
			t.Fatalf("Open(%q) with the right password: %v", c.url, err)
		}
		if _, err := driver.Of(o.Store).Get(ctx, "a"); err != nil {
			t.Fatalf("Get after Open(%q) with the right password: %v", c.url, err)
		}
		o.Close()
	}
	if o, err := Open(ctx, "etcd://root:"+secret+"@"+host+"/jobs", Options{}); err == nil {
		o.Close()
		t.Fatal("Open with a wrong password in the URL succeeded")
	} else if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "authentication failed") {
		t.Fatalf("Open with a wrong password in the URL: %v, want etcd's authentication failure without the password", err)
	}
}

// TestOpenedStoreIsTheAdapter: Opened.Store is the adapter itself, so
// lease finds its optional interfaces (a wrapper would hide them, and
// lease.WaitAuto would then fall back to key mode).
func TestOpenedStoreIsTheAdapter(t *testing.T) {
	srv, err := embedetcd.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	o, err := Open(context.Background(), "etcd://"+strings.TrimPrefix(srv.Endpoint, "http://")+"/jobs", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if driver.Of(o.Store) == nil {
		t.Errorf("Opened.Store is %T: holds no backends.Driver", o.Store)
	}
}
