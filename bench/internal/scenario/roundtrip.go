package scenario

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/hashicorp/consul/api"
	"github.com/leasehold/leasehold/bench/internal/env"
)

// prober measures the store's write round trip on a client of its own:
// one unconditional write of a key (etcd Put, ZooKeeper SetData, Consul KV
// put), the unit a hand-off's writes are counted in.
type prober struct {
	write func(ctx context.Context) error
	close func()
}

// newProber returns a prober on st.
func newProber(st *env.Store) (*prober, error) {
	switch st.Kind {
	case env.Etcd:
		c, err := st.EtcdClient()
		if err != nil {
			return nil, err
		}
		put := func(ctx context.Context) error { _, err := c.Put(ctx, "/bench-rtt/key", "x"); return err }
		return &prober{write: put, close: func() { c.Close() }}, nil
	case env.ZooKeeper:
		return newZKProber(st)
	default:
		c, err := st.ConsulClient()
		if err != nil {
			return nil, err
		}
		put := func(ctx context.Context) error {
			_, err := c.KV().Put(&api.KVPair{Key: "bench-rtt/key", Value: []byte("x")}, (&api.WriteOptions{}).WithContext(ctx))
			return err
		}
		return &prober{write: put, close: func() {}}, nil
	}
}

func newZKProber(st *env.Store) (*prober, error) {
	c, _, err := zk.Connect(st.Endpoints, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	const path = "/bench-rtt"
	if _, err := c.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		c.Close()
		return nil, err
	}
	set := func(context.Context) error { _, err := c.Set(path, []byte("x"), -1); return err }
	return &prober{write: set, close: c.Close}, nil
}

// probe measures one write round trip.
func (p *prober) probe() (time.Duration, error) {
	ctx, cancel := bg()
	defer cancel()
	t0 := time.Now()
	err := p.write(ctx)
	return time.Since(t0), err
}
