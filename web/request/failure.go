package request

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"
)

// While Redis cannot be reached, pages, the API and /live answer 503 and ask
// clients to come back after StoreRetry; /readyz tells the load balancer.
const (
	StoreRetry       = 5 * time.Second
	StoreDownTitle   = "Temporarily unavailable"
	StoreDownMessage = "The data store (Redis) is unavailable right now, so this cannot be shown. Try again in a few seconds."
	APIStoreDown     = "the data store (Redis) is unavailable; retry in a few seconds"
)

// StatusClientClosed is what the request log records for a client that left
// before its answer (nginx's 499); nobody receives it.
const StatusClientClosed = 499

// StoreUnavailable reports whether err says the data store could not be
// reached, rather than that it refused or that we have a bug: a connection
// refused, reset or closed (go-redis passes io.EOF on), a dial or reply
// timeout, or no pooled connection in time. Every error path asks it:
// the HTML error handler for pages and /live, the API's for JSON.
func StoreUnavailable(err error) bool {
	var ne net.Error // *net.OpError, *net.DNSError, syscall.Errno, i/o timeouts
	switch {
	case err == nil, errors.Is(err, context.Canceled): // a client that left: see ClientGone
		return false
	case errors.As(err, &ne),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrPoolExhausted), errors.Is(err, redis.ErrClosed):
		return true
	}
	// Redis answers but cannot serve yet: loading its data, a replica whose
	// primary is down, a cluster without quorum or mid-resharding.
	var re redis.Error
	if errors.As(err, &re) {
		for _, p := range []string{"LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "BUSY "} {
			if strings.HasPrefix(re.Error(), p) {
				return true
			}
		}
	}
	return false
}

// ClientGone reports whether err only says that the client went away (closed
// the tab, lost the network): the request's context was canceled, or the
// answer could not be written. That is normal, not worth more than a debug line.
func ClientGone(c echo.Context, err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	broken := errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
	return broken && (c.Response().Committed || c.Request().Context().Err() != nil)
}

// RetryAfter is d as a Retry-After header value: whole seconds, rounded up.
func RetryAfter(d time.Duration) string { return strconv.Itoa(int(d.Seconds() + 0.999)) }
