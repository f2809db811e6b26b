package env

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Counts are cumulative counters of what a store served.
type Counts struct {
	// Requests counts client requests: etcd gRPC messages received
	// (unary calls and stream messages such as keep-alives and watch
	// creations, not the end of a stream); ZooKeeper packets received
	// (pings included); Consul HTTP requests sent by the benchmark's
	// clients.
	Requests float64
	// Notifications counts watch notifications: etcd Watch stream
	// responses sent; ZooKeeper packets sent beyond one per packet
	// received; Consul blocking queries that returned.
	Notifications float64
	// Renewals counts the requests among Requests that renew a session:
	// etcd LeaseKeepAlive messages (KeepAliveOnce's too), Consul session
	// renewals. ZooKeeper's counters cannot tell pings from other
	// packets: 0. Renewals come in bursts (sessions made together renew
	// together), so a short window's count is noise; a count net of them
	// is not.
	Renewals float64
}

// Sub returns c − o.
func (c Counts) Sub(o Counts) Counts {
	return Counts{Requests: c.Requests - o.Requests, Notifications: c.Notifications - o.Notifications,
		Renewals: c.Renewals - o.Renewals}
}

// Work returns the requests that are not renewals: Requests − Renewals.
func (c Counts) Work() float64 { return c.Requests - c.Renewals }

// Counts reads the store's counters.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	switch s.Kind {
	case Etcd:
		return etcdCounts(ctx, s.Endpoints[0])
	case ZooKeeper:
		return zkCounts(ctx, s.Endpoints[0])
	default:
		return Counts{Requests: float64(s.consulReqs.Load()), Notifications: float64(s.consulWakes.Load()),
			Renewals: float64(s.consulRenews.Load())}, nil
	}
}

// metricsClient closes its connection after each scrape, so that Conns
// sees only the connections of the clients under test.
var metricsClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// etcdCounts reads the member's Prometheus metrics.
func etcdCounts(ctx context.Context, ep string) (Counts, error) {
	if !strings.HasPrefix(ep, "http") {
		ep = "http://" + ep
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep+"/metrics", nil)
	if err != nil {
		return Counts{}, err
	}
	resp, err := metricsClient.Do(req)
	if err != nil {
		return Counts{}, err
	}
	defer resp.Body.Close()
	var c Counts
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "grpc_server_msg_received_total{"):
			c.Requests += lastFloat(line)
			c.Renewals += keepAlive(line)
		case strings.HasPrefix(line, "grpc_server_handled_total{") && !strings.Contains(line, `grpc_type="unary"`):
			// The server's metrics count the receive that ends a stream
			// (the client's close or cancel) as a message: a
			// KeepAliveOnce, one stream with one request, counts 2.
			c.Requests -= lastFloat(line)
			c.Renewals -= keepAlive(line)
		case strings.HasPrefix(line, "grpc_server_msg_sent_total{") && strings.Contains(line, `grpc_method="Watch"`):
			c.Notifications += lastFloat(line)
		}
	}
	return c, sc.Err()
}

// keepAlive returns line's value if it counts LeaseKeepAlive, else 0.
func keepAlive(line string) float64 {
	if strings.Contains(line, `grpc_method="LeaseKeepAlive"`) {
		return lastFloat(line)
	}
	return 0
}

func lastFloat(line string) float64 {
	f, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
	return f
}

// zkCounts reads the server's packet counters with the mntr command.
func zkCounts(ctx context.Context, addr string) (Counts, error) {
	m, err := fourLetter(ctx, addr, "mntr")
	if err != nil {
		return Counts{}, err
	}
	recv, sent := m["zk_packets_received"], m["zk_packets_sent"]
	return Counts{Requests: recv, Notifications: sent - recv}, nil
}

// fourLetter sends a ZooKeeper four-letter command and parses its
// "key value" lines.
func fourLetter(ctx context.Context, addr, cmd string) (map[string]float64, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte(cmd)); err != nil {
		return nil, err
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				m[f[0]] = v
			}
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("zookeeper %s: %s: no answer", addr, cmd)
	}
	return m, nil
}
