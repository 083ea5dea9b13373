package hooks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
)

// Why an attempt got no answer, as its log shows it. These words are all a
// hook's log ever says about a failure: the error itself names addresses,
// ports and the server's resolver, and a board's API key reads the log, so
// it would map the network the server sits in. The error goes to the
// server's log (slog), with the board and the hook.
const (
	failRefused     = "refused: not a public address"
	failDNS         = "DNS failure"
	failTimeout     = "timeout"
	failTLS         = "TLS error"
	failConnRefused = "connection refused"
	failConnReset   = "connection reset"
	failUnreachable = "network unreachable"
	failConnection  = "connection failed"
	failBadURL      = "bad URL"
	failTooLate     = "not delivered in time" // the retry time (24 h) is over
	failUnreadable  = "the queued event is unreadable"
)

// Failures lists every text an attempt's error may hold.
var Failures = []string{failRefused, failDNS, failTimeout, failTLS, failConnRefused, failConnReset,
	failUnreachable, failConnection, failBadURL, failTooLate, failUnreadable}

// errBadURL is a hook URL the client cannot make a request of.
var errBadURL = errors.New("hooks: the URL makes no request")

// describe is the category of an error an attempt got instead of an answer.
func describe(err error) string {
	if errors.Is(err, errBadURL) {
		return failBadURL
	}
	var dns *net.DNSError
	var op *net.OpError
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var badCert x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, ErrPrivateAddress):
		return failRefused
	case errors.As(err, &dns):
		return failDNS
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &timeout) && timeout.Timeout():
		return failTimeout
	case errors.As(err, &unknownCA), errors.As(err, &badHost), errors.As(err, &badCert), errors.As(err, &verify),
		errors.As(err, &record), errors.As(err, &alert), errors.As(err, &op) && op.Op == "remote error",
		strings.Contains(err.Error(), "tls: "):
		return failTLS
	case errors.Is(err, syscall.ECONNREFUSED):
		return failConnRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return failConnReset
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.EADDRNOTAVAIL):
		return failUnreachable
	}
	return failConnection
}

// cause is what the server logs of an attempt's error: all of it but the
// URL, whose query may hold the receiver's token.
func cause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// shown is an attempt's error as the log shows it: one of Failures. An
// attempt logged before the log kept categories only (its text may name
// addresses) shows as its category, or as failConnection.
func shown(s string) string {
	switch {
	case s == "" || slices.Contains(Failures, s):
		return s
	case s == "timed out":
		return failTimeout
	case strings.HasPrefix(s, "not delivered within "):
		return failTooLate
	case strings.Contains(s, "not a public address"):
		return failRefused
	case strings.HasPrefix(s, "lookup "):
		return failDNS
	case strings.Contains(s, "connection refused"):
		return failConnRefused
	case strings.Contains(s, "tls: ") || strings.Contains(s, "x509: "):
		return failTLS
	}
	return failConnection
}
