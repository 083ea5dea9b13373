package board

import (
	"errors"
	"fmt"
	"time"
)

// Score sessions. A board may take scores only from runs a game server
// started: the server asks for a session for a member (a random token, kept
// in the board's slot), and a score is accepted only with a token of that
// member, once, between MinSeconds and MaxSeconds after it was issued. The
// write script checks and consumes the token in the step that writes
// (redisstore/lua/lib/rules.lua), so two writes racing with one token
// cannot both land. Outside writers (FCALL) carry no token: a sessions
// board refuses them. The console's score form is a person's adjustment,
// not a run: it needs none (SessionWaived).

// Sessions are a board's run times, in whole seconds.
type Sessions struct {
	MinSeconds int `json:"min_seconds"`
	MaxSeconds int `json:"max_seconds"`
}

// MaxSessionSeconds bounds a run: a day.
const MaxSessionSeconds = 86400

// SessionWaived is the session the console's score form sends: a person's
// adjustment needs no run. The API never accepts it (CheckSessionToken).
const SessionWaived = "-"

// ErrSessionInvalid refuses a write on a sessions board without a token
// it accepts; the message says why.
var ErrSessionInvalid = errors.New("session invalid")

// Session is a run a game server started for a member.
type Session struct {
	Token     string // 64 hex digits, shown once
	Member    string
	IssuedAt  time.Time
	ValidFrom time.Time // a score is accepted from then on
	ExpiresAt time.Time // and until then
}

// SessionError says why a session token was refused.
func SessionError(why string, s *Sessions) error {
	msg := map[string]string{
		"missing": "this board takes scores only with a session token (start a run with POST .../sessions); nothing was written",
		"unknown": "the session token is unknown or expired; nothing was written",
		"used":    "the session token was used already: one score per run; nothing was written",
		"expired": fmt.Sprintf("the session expired: a run lasts at most %d s; nothing was written", s.MaxSeconds),
		"member":  "the session token belongs to another member; nothing was written",
		"early":   fmt.Sprintf("too fast: a run lasts at least %d s; nothing was written", s.MinSeconds),
	}[why]
	if msg == "" {
		msg = "the session token was refused (" + why + "); nothing was written"
	}
	return NewFieldError(ErrSessionInvalid, "session", "%s", msg)
}

// CheckSessionToken refuses a token that is not 64 lower-case hex digits.
func CheckSessionToken(t string) error {
	if len(t) != 64 {
		return NewFieldError(ErrInvalidInput, "session", "must be the 64-digit token POST .../sessions answered")
	}
	for _, c := range t {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return NewFieldError(ErrInvalidInput, "session", "must be the 64-digit token POST .../sessions answered")
		}
	}
	return nil
}

// checkSessions holds a board's run times to 0 <= min < max <= a day.
func (b *Board) checkSessions(p *problems) {
	s := b.Sessions
	if s == nil {
		return
	}
	if s.MinSeconds < 0 || s.MinSeconds >= MaxSessionSeconds {
		p.add("sessions.min_seconds", "must be a whole number of seconds from 0 to %d", MaxSessionSeconds-1)
	}
	if s.MaxSeconds < 1 || s.MaxSeconds > MaxSessionSeconds {
		p.add("sessions.max_seconds", "must be a whole number of seconds from 1 to %d", MaxSessionSeconds)
	} else if s.MaxSeconds <= s.MinSeconds {
		p.add("sessions.max_seconds", "must be more than min_seconds")
	}
}
