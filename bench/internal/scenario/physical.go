package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/hashicorp/consul/api"
	"github.com/leasehold/leasehold/bench/internal/env"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Physical measures n paced write-then-notify round trips: a writer idles
// Pace, writes a key, and a watcher on another connection is notified;
// each write and its notification in st's turn.
func Physical(st *env.Store, n int) ([]time.Duration, error) {
	switch st.Kind {
	case env.Etcd:
		return physEtcd(st, n)
	case env.ZooKeeper:
		return physZK(st, n)
	default:
		return physConsul(st, n)
	}
}

func physEtcd(st *env.Store, n int) ([]time.Duration, error) {
	w, err := st.EtcdClient()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r, err := st.EtcdClient()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const key = "/bench-phys/key"
	g, err := w.Put(ctx, key, "0")
	if err != nil {
		return nil, err
	}
	wch := r.Watch(ctx, key, clientv3.WithRev(g.Header.Revision+1))
	out := make([]time.Duration, 0, n)
	for i := range n {
		time.Sleep(Pace)
		d, err := measure(st, func() error {
			if _, err := w.Put(ctx, key, fmt.Sprint(i)); err != nil {
				return err
			}
			_, err := recv(wch, "etcd watch")
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func physZK(st *env.Store, n int) ([]time.Duration, error) {
	w, _, err := zk.Connect(st.Endpoints, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r, _, err := zk.Connect(st.Endpoints, 4*time.Second, zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	const path = "/bench-phys"
	if _, err := w.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
		return nil, err
	}
	out := make([]time.Duration, 0, n)
	for i := range n {
		_, _, ev, err := r.GetW(path)
		if err != nil {
			return nil, err
		}
		time.Sleep(Pace)
		d, err := measure(st, func() error {
			if _, err := w.Set(path, []byte(fmt.Sprint(i)), -1); err != nil {
				return err
			}
			_, err := recv(ev, "zookeeper watch")
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func physConsul(st *env.Store, n int) ([]time.Duration, error) {
	w, err := st.ConsulClient()
	if err != nil {
		return nil, err
	}
	r, err := st.ConsulClient()
	if err != nil {
		return nil, err
	}
	const key = "bench-phys/key"
	if _, err := w.KV().Put(&api.KVPair{Key: key, Value: []byte("0")}, nil); err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, n)
	for i := range n {
		_, meta, err := r.KV().Get(key, &api.QueryOptions{RequireConsistent: true})
		if err != nil {
			return nil, err
		}
		idx := meta.LastIndex
		got := make(chan uint64, 1)
		go func() {
			_, m, err := r.KV().Get(key, &api.QueryOptions{WaitIndex: idx, WaitTime: 30 * time.Second})
			if err != nil {
				got <- 0
				return
			}
			got <- m.LastIndex
		}()
		time.Sleep(Pace)
		d, err := measure(st, func() error { // i+1: Consul does not bump the index of an unchanged value
			if _, err := w.KV().Put(&api.KVPair{Key: key, Value: []byte(fmt.Sprint(i + 1))}, nil); err != nil {
				return err
			}
			v, err := recv(got, "consul blocking query")
			if err != nil || v <= idx {
				return fmt.Errorf("consul blocking query failed: %v", err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
