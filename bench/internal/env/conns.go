package env

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Conns counts the TCP connections this process has open (ESTABLISHED)
// to the store's endpoints: the sockets among /proc/self/fd whose remote
// address in /proc/self/net/tcp and tcp6 is an endpoint. It works on
// Linux only. The store counters' own requests (etcd /metrics, ZooKeeper
// mntr) do not keep a connection open.
func (s *Store) Conns() (int, error) {
	want := map[string]bool{}
	for _, ep := range s.Endpoints {
		addr, err := endpointAddr(ep)
		if err != nil {
			return 0, err
		}
		want[addr] = true
	}
	mine, err := socketInodes()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		k, err := countEstablished(f, want, mine)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// endpointAddr returns an endpoint (URL or host:port) as a resolved ip:port.
func endpointAddr(ep string) (string, error) {
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		ep = u.Host
	}
	a, err := net.ResolveTCPAddr("tcp", ep)
	if err != nil {
		return "", fmt.Errorf("endpoint %q: %w", ep, err)
	}
	return net.JoinHostPort(a.IP.String(), strconv.Itoa(a.Port)), nil
}

// socketInodes returns the inodes of this process's sockets.
func socketInodes() (map[string]bool, error) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	for _, fd := range fds {
		l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			m[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	return m, nil
}

// countEstablished counts the lines of a /proc/net/tcp file in state
// ESTABLISHED (01) whose remote address is in want and inode in mine.
func countEstablished(path string, want, mine map[string]bool) (int, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[3] != "01" || !mine[fs[9]] {
			continue
		}
		if a, ok := procAddr(fs[2]); ok && want[a] {
			n++
		}
	}
	return n, sc.Err()
}

// procAddr decodes a /proc/net/tcp address "HEXIP:HEXPORT": the IP is in
// host byte order by 32-bit word (little-endian on the machines here).
func procAddr(s string) (string, bool) {
	h, p, ok := strings.Cut(s, ":")
	b, err := hex.DecodeString(h)
	port, perr := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil || perr != nil || len(b)%4 != 0 {
		return "", false
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	ip := net.IP(b)
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(int(port))), true
}
