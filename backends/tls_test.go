package backends_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/leasehold/leasehold/backends"
)

// TestCertificateFailure: real handshakes that fail on a certificate are
// certificate failures through the chains clients wrap them in; other
// connection failures are not.
func TestCertificateFailure(t *testing.T) {
	srv := quietServer()
	srv.StartTLS()
	defer srv.Close()
	_, unknownCA := (&http.Client{Transport: &http.Transport{}}).Get(srv.URL) // no root trusts the test server
	certRequired := clientCertRequired(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, refused := net.Dial("tcp", closed)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"unknown authority in a url.Error", unknownCA, true},
		{"wrapped again", fmt.Errorf("op: %w", unknownCA), true},
		{"server requires a client certificate", certRequired, true},
		{"connection refused", refused, false},
		{"EOF", io.EOF, false},
		{"nil", nil, false},
		{"an alert's words as plain text", errors.New("remote error: tls: bad certificate"), false},
	} {
		if got := backends.CertificateFailure(tc.err); got != tc.want {
			t.Errorf("%s: CertificateFailure(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// clientCertRequired returns what a client without a certificate reads
// from a TLS 1.3 server that requires one: the server's alert.
func clientCertRequired(t *testing.T) error {
	srv := quietServer()
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13}
	srv.StartTLS()
	defer srv.Close()
	c := srv.Client()
	_, err := c.Get(srv.URL)
	if err == nil {
		t.Fatal("a server requiring a client certificate answered a client without one")
	}
	return err
}

// quietServer is an unstarted test server that logs no failed handshake.
func quietServer() *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	return srv
}
