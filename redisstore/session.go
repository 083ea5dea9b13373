package redisstore

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"podium/board"
)

// sessionKey is where a run's token is kept (lua/lib/rules.lua): under the
// SHA-1 of its text, which is all the script can compute (a token is 256
// random bits: its digest reveals nothing). A hash: m the member, t when
// issued (µs), b when its board was made (the definition's created: a
// board made again under its id knows none of the old one's runs), used
// once a score used it; it expires a minute after the run's longest time.
func sessionKey(boardID, token string) string {
	sum := sha1.Sum([]byte(token))
	return tagOf(boardID) + ":sess:" + hex.EncodeToString(sum[:])
}

// memberSessionsKey lists the session keys of a member's runs, so that an
// erasure finds them; it lives as long as the newest.
func memberSessionsKey(boardID, member string) string {
	return tagOf(boardID) + ":sess:m:" + member
}

// StartSession starts a run for member on a board with sessions: a random
// token that one score of that member may carry, between the board's
// minimum and maximum run time from now.
func (s writer) StartSession(ctx context.Context, boardID, member string) (board.Session, error) {
	if err := board.CheckMember(member); err != nil {
		return board.Session{}, err
	}
	b, err := s.boardForWrite(ctx, boardID)
	if err != nil {
		return board.Session{}, err
	}
	if b.Sessions == nil {
		return board.Session{}, board.NewFieldError(board.ErrInvalidInput, "board", "board %q takes scores without sessions; give it sessions (min_seconds, max_seconds) first", boardID)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return board.Session{}, err
	}
	now := s.now()
	ss := board.Session{Token: hex.EncodeToString(raw), Member: member, IssuedAt: now.UTC().Truncate(time.Microsecond)}
	ss.ValidFrom = ss.IssuedAt.Add(time.Duration(b.Sessions.MinSeconds) * time.Second)
	ss.ExpiresAt = ss.IssuedAt.Add(time.Duration(b.Sessions.MaxSeconds) * time.Second)
	k := sessionKey(boardID, ss.Token)
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		ttl := time.Duration(b.Sessions.MaxSeconds)*time.Second + time.Minute
		p.HSet(ctx, k, "m", member, "t", ss.IssuedAt.UnixMicro(), "b", b.Created.Format(time.RFC3339Nano)) // as boards.go writes it
		p.Expire(ctx, k, ttl)
		p.SAdd(ctx, memberSessionsKey(boardID, member), k) // for the member's erasure (lua/erase.lua)
		p.Expire(ctx, memberSessionsKey(boardID, member), ttl)
		return nil
	})
	if err != nil {
		return board.Session{}, fmt.Errorf("board: start a session on %q: %w", boardID, err)
	}
	return ss, nil
}
