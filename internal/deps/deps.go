// Package deps pins modules that adapters under construction will import.
package deps

import (
	_ "github.com/go-zookeeper/zk"
	_ "github.com/hashicorp/consul/api"
	_ "github.com/testcontainers/testcontainers-go"
	_ "github.com/testcontainers/testcontainers-go/modules/consul"
	_ "github.com/testcontainers/testcontainers-go/modules/etcd"
)
