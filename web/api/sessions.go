package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// sessionJSON is a started run (board/session.go): its token, shown once.
type sessionJSON struct {
	Token     string    `json:"token"`
	Member    string    `json:"member"`
	IssuedAt  time.Time `json:"issued_at"`
	ValidFrom time.Time `json:"valid_from"`
	ExpiresAt time.Time `json:"expires_at"`
}

// apiStartSession starts a run for a member on a board with sessions: a
// game server asks for it as the run begins and sends its token with the
// run's score.
func (s *Handler) apiStartSession(c echo.Context) error {
	b, err := s.boardToWrite(c)
	if err != nil {
		return err
	}
	var req struct {
		Member string `json:"member"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ss, err := s.opts.Store.StartSession(c.Request().Context(), b.ID, req.Member)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, sessionJSON{Token: ss.Token, Member: ss.Member, IssuedAt: ss.IssuedAt, ValidFrom: ss.ValidFrom, ExpiresAt: ss.ExpiresAt})
}
