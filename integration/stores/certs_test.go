package stores

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
)

// TestCerts: the server certificate verifies for 127.0.0.1 and the extra
// host names against CA, the client certificate verifies as a client
// against CA, and OtherClient does not.
func TestCerts(t *testing.T) {
	c := NewCerts(t, "zk")
	roots := c.ClientTLS(t).RootCAs
	leaf := func(cert, key string) *x509.Certificate {
		kp, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			t.Fatal(err)
		}
		x, err := x509.ParseCertificate(kp.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	srv := leaf(c.Server, c.ServerKey)
	for _, host := range []string{"127.0.0.1", "::1", "localhost", "zk"} {
		if _, err := srv.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
	client := x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := leaf(c.Client, c.ClientKey).Verify(client); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	if _, err := leaf(c.OtherClient, c.OtherClientKey).Verify(client); err == nil {
		t.Error("the other CA's client certificate verifies against CA")
	}
	if _, err := tls.LoadX509KeyPair(c.ServerBundle, c.ServerBundle); err != nil {
		t.Errorf("server bundle: %v", err)
	}
}
