package redisstore

import (
	"context"
	"fmt"
	"math"
)

// Upgrade brings boards written by earlier versions up to date, once, at
// start: decimal boards whose scores were stored as decimals (12.34) get them
// in units (1234), see board/score.go. It returns the ids it changed. Writes
// to such a board are refused until it is upgraded, so nothing mixes units.
func (s catalog) Upgrade(ctx context.Context) ([]string, error) {
	bs, err := s.Boards(ctx)
	if err != nil {
		return nil, err
	}
	var done []string
	for i := range bs {
		b := &bs[i]
		if !b.LegacyUnits {
			continue
		}
		reply, err := scripts.upgrade.call(4, 5).key("def", defKey(b.ID)).key("periods", periodsKey(b.ID)).key("recent", recentKey(b.ID)).key("gen", genKey(b.ID)).
			encoding(b).arg("multiplier", math.Pow10(b.Format.Decimals)).run(ctx, s.rdb).Result()
		if err != nil {
			return done, fmt.Errorf("board: upgrade %q to units: %w", b.ID, err)
		}
		s.defs.drop(b.ID)
		if st, _, _ := status(reply); st == "ok" {
			done = append(done, b.ID)
			zsets, _ := s.rdb.SMembers(ctx, periodsKey(b.ID)).Result()
			s.wrote(ctx, zsets...)
		}
	}
	return done, nil
}
