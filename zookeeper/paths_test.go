package zookeeper

import (
	"slices"
	"strings"
	"testing"
)

func TestValidatePath(t *testing.T) {
	for _, p := range []string{"/", "/a", "/leasehold/test/x-1.2_3", "/ü/€", "/a/.b", "/a/..b", "/a/b."} {
		if err := validatePath(p); err != nil {
			t.Errorf("validatePath(%q) = %v, want nil", p, err)
		}
	}
	bad := []string{"a", "/a/", "//a", "/a//b", "/a/./b", "/a/..", "/.", "/a\x00b", "/a\x1fb",
		"/a\u007fb", "/a\u0085b", "/\ue000", "/\uf8ff", "/\ufff0", "/\ufffd", "/\xff"}
	for _, p := range bad {
		if err := validatePath(p); err == nil || !strings.Contains(err.Error(), "path") {
			t.Errorf("validatePath(%q) = %v, want an error naming the path", p, err)
		}
	}
	if err := validatePath(""); err == nil {
		t.Error("validatePath(\"\") = nil, want an error")
	}
}

func TestValidatePathNamesIt(t *testing.T) {
	err := validatePath("/leasehold/a\x01b")
	if err == nil || !strings.Contains(err.Error(), `"/leasehold/a\x01b"`) || !strings.Contains(err.Error(), "U+0001") {
		t.Fatalf("error %v, want the path quoted and the character named", err)
	}
}

func TestValidatePrefix(t *testing.T) {
	for _, p := range []string{"/leasehold", "/a/b", "/zookeeperx", "/x/zookeeper"} {
		if err := validatePrefix(p); err != nil {
			t.Errorf("validatePrefix(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"/", "leasehold", "/leasehold/", "/zookeeper", "/zookeeper/x", "/a//b"} {
		err := validatePrefix(p)
		if err == nil || !strings.Contains(err.Error(), "Prefix") || !strings.Contains(err.Error(), p) {
			t.Errorf("validatePrefix(%q) = %v, want an error naming Prefix and %q", p, err, p)
		}
	}
}

func TestAncestors(t *testing.T) {
	cases := map[string][]string{
		"/a":             nil,
		"/a/b":           {"/a"},
		"/leasehold/x/y": {"/leasehold", "/leasehold/x"},
	}
	for p, want := range cases {
		if got := ancestors(p); !slices.Equal(got, want) {
			t.Errorf("ancestors(%q) = %q, want %q", p, got, want)
		}
	}
}
