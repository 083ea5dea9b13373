package hooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	HeaderEvent     = "Podium-Event"     // leader.changed, top.entered, period.closed, ping
	HeaderDelivery  = "Podium-Delivery"  // the delivery's id: the same on every attempt, for receivers to drop repeats
	HeaderAttempt   = "Podium-Attempt"   // 1 on the first attempt
	HeaderTimestamp = "Podium-Timestamp" // Unix seconds when this attempt was signed
	HeaderSignature = "Podium-Signature" // v1=<hex HMAC-SHA256 of "<timestamp>.<body>">
)

// Sign is the Podium-Signature value of body sent at timestamp ts (Unix
// seconds) with secret: "v1=" and the hex HMAC-SHA256 of "<ts>.<body>",
// keyed with the secret string as it was shown.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify is what a receiver does: the signature must match and the
// timestamp be within tolerance of now, so a captured delivery cannot be
// replayed later. A header may carry several "v1=" values (comma-separated).
func Verify(secret, timestamp, signature string, body []byte, now time.Time, tolerance time.Duration) bool {
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return false
	}
	want := Sign(secret, ts, body)
	for _, s := range strings.Split(signature, ",") {
		if hmac.Equal([]byte(strings.TrimSpace(s)), []byte(want)) {
			return true
		}
	}
	return false
}
