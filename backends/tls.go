package backends

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
)

// CertificateFailure is for adapters: it reports whether err, anywhere in
// its chain, is a TLS handshake that failed on a certificate, which no
// retry cures (classify it as ErrTLS): the client's verification of the
// server's certificate (*tls.CertificateVerificationError, or the x509
// error itself: x509.UnknownAuthorityError, x509.CertificateInvalidError,
// x509.HostnameError), or an alert with which the server refused the
// handshake (see CertificateAlert). Check it before Canceled: what a call's end
// leaves is never a certificate failure.
func CertificateFailure(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		ci x509.CertificateInvalidError
		hn x509.HostnameError
		op *net.OpError
	)
	switch {
	case errors.As(err, &cv), errors.As(err, &ua), errors.As(err, &ci), errors.As(err, &hn):
		return true
	case errors.As(err, &op) && op.Op == "remote error":
		return refused(op.Err)
	}
	return false
}

// certificateAlerts are the TLS alerts with which a server refuses the
// client's certificate (or, as a Java server such as ZooKeeper does, the
// handshake it will not complete without one): handshake_failure,
// bad_certificate, unsupported_certificate, certificate_revoked,
// certificate_expired, certificate_unknown, unknown_ca, access_denied and
// certificate_required.
var certificateAlerts = []tls.AlertError{40, 42, 43, 44, 45, 46, 48, 49, 116}

// CertificateAlert is for adapters whose client library hands over a
// peer's TLS alert only as text (gRPC): it reports whether text begins
// with the text of an alert with which a server refuses the client's
// certificate, or the handshake without one ("tls: bad certificate",
// "tls: certificate required", "tls: handshake failure", ...).
func CertificateAlert(text string) bool {
	for _, a := range certificateAlerts {
		if strings.HasPrefix(text, a.Error()) {
			return true
		}
	}
	return false
}

// refused reports whether err is a peer's alert CertificateAlert names,
// as crypto/tls returns one: a value of its unexported alert type, whose
// text is the text of the tls.AlertError of the same number.
func refused(err error) bool { return err != nil && CertificateAlert(err.Error()) }
