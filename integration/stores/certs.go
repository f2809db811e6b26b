package stores

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Certs are the PEM files of a test PKI, generated for one test in a
// temporary directory: a CA, a server certificate it signed (IP SANs
// 127.0.0.1 and ::1, DNS names localhost and the hosts given to NewCerts),
// a client certificate it signed, and a second, unrelated CA with a client
// certificate of its own for the wrong-CA cases. Every key is ECDSA P-256
// in PKCS #8 ("PRIVATE KEY"), which etcd, Consul, Go and ZooKeeper's PEM
// key stores all read.
type Certs struct {
	// CA is the CA certificate that signed Server and Client.
	CA string
	// Server and ServerKey are the servers' certificate and key;
	// ServerBundle holds both (key first), as ZooKeeper's PEM key store
	// wants them.
	Server, ServerKey, ServerBundle string
	// Client and ClientKey are a client certificate that CA signed.
	Client, ClientKey string
	// OtherCA is a CA that signed neither Server nor Client.
	OtherCA string
	// OtherClient and OtherClientKey are a client certificate OtherCA
	// signed: a server that trusts CA must refuse it.
	OtherClient, OtherClientKey string
}

// NewCerts generates a test PKI in a temporary directory of t. hosts are
// extra DNS names of the server certificate (the containers' host names).
func NewCerts(t testing.TB, hosts ...string) *Certs {
	t.Helper()
	dir := t.TempDir()
	g := &certGen{t: t, dir: dir}
	ca, caKey := g.ca("leasehold test CA")
	other, otherKey := g.ca("leasehold other CA")
	c := &Certs{CA: g.writeCert("ca.pem", ca), OtherCA: g.writeCert("other-ca.pem", other)}
	srv, srvKey := g.leaf("leasehold test server", ca, caKey, x509.ExtKeyUsageServerAuth, append([]string{"localhost"}, hosts...))
	c.Server, c.ServerKey = g.writeCert("server.pem", srv), g.writeKey("server-key.pem", srvKey)
	c.ServerBundle = g.write("server-bundle.pem", append(g.keyPEM(srvKey), certPEM(srv)...))
	cl, clKey := g.leaf("leasehold test client", ca, caKey, x509.ExtKeyUsageClientAuth, nil)
	c.Client, c.ClientKey = g.writeCert("client.pem", cl), g.writeKey("client-key.pem", clKey)
	ocl, oclKey := g.leaf("leasehold other client", other, otherKey, x509.ExtKeyUsageClientAuth, nil)
	c.OtherClient, c.OtherClientKey = g.writeCert("other-client.pem", ocl), g.writeKey("other-client-key.pem", oclKey)
	return c
}

// ClientTLS returns a client configuration that trusts CA and presents
// Client: mutual TLS with the test servers.
func (c *Certs) ClientTLS(t testing.TB) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	pem, err := os.ReadFile(c.CA)
	if err != nil || !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("certs: CA %s: %v", c.CA, err)
	}
	kp, err := tls.LoadX509KeyPair(c.Client, c.ClientKey)
	if err != nil {
		t.Fatalf("certs: client pair: %v", err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{kp}, MinVersion: tls.VersionTLS12}
}

// ServerTLS returns a server configuration that presents Server and
// requires a client certificate CA signed.
func (c *Certs) ServerTLS(t testing.TB) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	pem, err := os.ReadFile(c.CA)
	if err != nil || !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("certs: CA %s: %v", c.CA, err)
	}
	kp, err := tls.LoadX509KeyPair(c.Server, c.ServerKey)
	if err != nil {
		t.Fatalf("certs: server pair: %v", err)
	}
	return &tls.Config{ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
		Certificates: []tls.Certificate{kp}, MinVersion: tls.VersionTLS12}
}

// certGen makes and writes the PKI's parts.
type certGen struct {
	t      testing.TB
	dir    string
	serial int64
}

func (g *certGen) ca(name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	tmpl := g.template(name)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	return g.sign(tmpl, nil, nil)
}

func (g *certGen) leaf(name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, usage x509.ExtKeyUsage, dns []string) (*x509.Certificate, *ecdsa.PrivateKey) {
	tmpl := g.template(name)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	if usage == x509.ExtKeyUsageServerAuth {
		tmpl.DNSNames = dns
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	}
	return g.sign(tmpl, ca, caKey)
}

func (g *certGen) template(name string) *x509.Certificate {
	g.serial++
	now := time.Now()
	return &x509.Certificate{SerialNumber: big.NewInt(g.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)}
}

// sign creates the certificate tmpl describes, signed by parent (itself if
// nil), with a new key.
func (g *certGen) sign(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		g.t.Fatal(err)
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		g.t.Fatalf("certs: sign %s: %v", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		g.t.Fatal(err)
	}
	return cert, key
}

func certPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func (g *certGen) keyPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		g.t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func (g *certGen) writeCert(name string, c *x509.Certificate) string {
	return g.write(name, certPEM(c))
}

func (g *certGen) writeKey(name string, k *ecdsa.PrivateKey) string {
	return g.write(name, g.keyPEM(k))
}

// write writes a file readable by all: the containers' servers may run as
// another user than the test. The keys are the test's own.
func (g *certGen) write(name string, b []byte) string {
	p := filepath.Join(g.dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		g.t.Fatal(err)
	}
	return p
}
