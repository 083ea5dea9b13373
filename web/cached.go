package web

import (
	"context"

	"podium/board"
	"podium/live"
	"podium/redisstore"
	"podium/web/api"
	"podium/web/pages"
)

// Hot reads (live.Cache): the public pages and the API read a board's open
// periods through the cache; the console reads around it, so an admin
// sees a change the moment it is made.

// Reads is what the cache answers: the store's reads of open periods.
type Reads interface {
	Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error)
	Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error)
	Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error)
	ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult
	Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error)
	Stats() live.CacheStats
}

// cachedPages is the pages' store with its reads through the cache.
type cachedPages struct {
	pages.Store
	c Reads
}

func (s cachedPages) Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error) {
	return s.c.Page(ctx, b, p, offset, limit)
}

func (s cachedPages) Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error) {
	return s.c.Around(ctx, b, p, member, k)
}

func (s cachedPages) Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error) {
	return s.c.Member(ctx, b, member)
}

func (s cachedPages) ReadViews(ctx context.Context, qs []redisstore.ViewQuery) []redisstore.ViewResult {
	return s.c.ReadViews(ctx, qs)
}

func (s cachedPages) Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error) {
	return s.c.Race(ctx, b, p)
}

// cachedAPI is the API's store with its reads through the cache; its
// writes go to the store, and so do its pages after a cursor (PageAfter):
// each walk asks for places of its own, which would only push the hot
// first pages out of the cache.
type cachedAPI struct {
	api.Store
	c Reads
}

func (s cachedAPI) Page(ctx context.Context, b *board.Board, p board.Period, offset, limit int) (board.Page, error) {
	return s.c.Page(ctx, b, p, offset, limit)
}

func (s cachedAPI) Around(ctx context.Context, b *board.Board, p board.Period, member string, k int) (board.Page, int, error) {
	return s.c.Around(ctx, b, p, member, k)
}

func (s cachedAPI) Member(ctx context.Context, b *board.Board, member string) ([]board.Standing, error) {
	return s.c.Member(ctx, b, member)
}

func (s cachedAPI) Race(ctx context.Context, b *board.Board, p board.Period) ([]board.RacePoint, error) {
	return s.c.Race(ctx, b, p)
}
