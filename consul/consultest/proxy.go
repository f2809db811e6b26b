package consultest

import (
	"io"
	"net"
	"sync"
)

// proxy forwards TCP connections from a loopback listener to one address.
// Sever cuts every connection and refuses new ones, as a crashed client's
// network would, while keeping the port, so no other listener can take it
// and answer a severed client.
type proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	severed bool
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
	once    sync.Once
}

// listen starts a proxy to target on a free port of 127.0.0.1.
func listen(target string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's host:port.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

// track registers c, or reports false once the proxy is severed.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.severed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) forward(c net.Conn) {
	defer p.wg.Done()
	up, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(up) {
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		up.Close()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	c.Close()
	<-done
	p.untrack(c, up)
}

func (p *proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

// Sever closes every connection and refuses new ones.
func (p *proxy) Sever() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.severed = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Close severs the proxy, closes its listener and waits for its
// goroutines.
func (p *proxy) Close() {
	p.once.Do(func() {
		p.Sever()
		p.ln.Close()
		p.wg.Wait()
	})
}
