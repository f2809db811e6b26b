package storeurl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasehold/leasehold/internal/embedetcd"
)

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
		{"zk://127.0.0.1:2181/x", Options{CACert: "ca.pem"}, "TLS"},
		{"consul://a:8500,b:8500/x", Options{}, "one agent address"},
		{"etcd://127.0.0.1:2379/x", Options{Cert: "c.pem"}, "--cert and --key"},
		{"etcd://127.0.0.1:2379/x", Options{CACert: "/nonexistent/ca.pem"}, "--cacert"},
		{"zk://127.0.0.1:2181/bad//prefix", Options{}, "prefix"},
	}
	for _, c := range cases {
		o, err := Open(ctx, c.url, c.opts)
		if err == nil {
			o.Close()
			t.Errorf("Open(%q) succeeded, want an error about %s", c.url, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q): %v, want it to mention %q", c.url, err, c.want)
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
	if rec, err := o.Get(ctx, "a"); err != nil || rec.Exists() || o.Name() != "etcd" {
		t.Fatalf("Get on %s = %+v, %v", o.Name(), rec, err)
	}
}
