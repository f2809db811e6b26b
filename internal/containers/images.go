package containers

import "os"

// image is a store's image variable and default image.
type image struct{ envVar, def string }

var images = map[string]image{
	"etcd":      {"LEASEHOLD_ETCD_IMAGE", "gcr.io/etcd-development/etcd:v3.7.3"},
	"zookeeper": {"LEASEHOLD_ZOOKEEPER_IMAGE", "zookeeper:3.8.0"},
	"consul":    {"LEASEHOLD_CONSUL_IMAGE", "hashicorp/consul:1.22.7"},
}

// Image returns the image of kind ("etcd", "zookeeper" or "consul"): the
// value of ImageVar(kind) if set, else the official image. It returns ""
// for another kind.
func Image(kind string) string {
	im := images[kind]
	if v := os.Getenv(im.envVar); v != "" {
		return v
	}
	return im.def
}

// ImageVar returns the environment variable that names kind's image
// (LEASEHOLD_ETCD_IMAGE, LEASEHOLD_ZOOKEEPER_IMAGE or
// LEASEHOLD_CONSUL_IMAGE), or "" for another kind.
func ImageVar(kind string) string { return images[kind].envVar }
