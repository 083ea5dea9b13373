package admin

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"podium/access"
	"podium/audit"
	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

// linkLifetimes are the choices of the share-link form: how long a new
// link works.
var linkLifetimes = map[string]time.Duration{"": 0, "1d": 24 * time.Hour, "7d": 7 * 24 * time.Hour,
	"30d": 30 * 24 * time.Hour, "365d": 365 * 24 * time.Hour}

// sharingView is a board's "Visibility and sharing" page.
func (s *Handler) sharingView(c echo.Context, b *board.Board) (templates.SharingView, error) {
	v := templates.SharingView{Nav: s.nav(c, "boards"), ID: b.ID, Title: b.Title, Visibility: string(b.Visibility),
		Public: "/b/" + url.PathEscape(b.ID), Errors: map[string]string{}}
	links, err := s.opts.Links.List(c.Request().Context(), b.ID)
	if err != nil {
		return v, err
	}
	v.EmbedPath, v.Site = "/embed/"+url.PathEscape(b.ID), siteURL(c)
	if s.opts.Embeds != nil {
		v.EmbedOn, err = s.opts.Embeds.Has(c.Request().Context(), b.ID)
		if err != nil {
			return v, err
		}
	}
	now := time.Now()
	for _, l := range links {
		v.Links = append(v.Links, templates.LinkRow{ID: l.ID, Name: l.Name, By: l.By, Created: l.Created,
			Expires: l.Expires, LastUsed: l.LastUsed, Expired: l.Expired(now)})
	}
	return v, s.personalView(c, b, &v)
}

func (s *Handler) sharingPage(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v, err := s.sharingView(c, &b)
	if err != nil {
		return err
	}
	return request.Render(c, http.StatusOK, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
}

// createLink makes a share link and shows its URL once, in this response
// only: Redis keeps its hash.
func (s *Handler) createLink(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	v, err := s.sharingView(c, &b)
	if err != nil {
		return err
	}
	name, life := strings.TrimSpace(formValue(c, "name")), formValue(c, "expires")
	v.Name, v.Expires = name, life
	ttl, ok := linkLifetimes[life]
	if !ok {
		v.Errors["expires"] = "choose one of the lifetimes offered"
	}
	if err := access.CheckLinkName(name); err != nil {
		v.Errors["name"] = "give the link a name of 1-64 characters, e.g. the class or team it is for"
	}
	if len(v.Errors) > 0 {
		return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
	}
	var expires time.Time
	if ttl > 0 {
		expires = time.Now().Add(ttl)
	}
	link, token, err := s.opts.Links.Create(c.Request().Context(), b.ID, b.Created, name, session(c).User, expires)
	if errors.Is(err, access.ErrInvalid) {
		v.Errors["name"] = strings.TrimPrefix(err.Error(), access.ErrInvalid.Error()+"\n")
		return request.Render(c, http.StatusUnprocessableEntity, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
	}
	if err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "link.create", Board: b.ID, After: linkLabel(link)})
	if v, err = s.sharingView(c, &b); err != nil {
		return err
	}
	v.NewURL, v.NewName = siteURL(c)+"/s/"+token, link.Name
	return request.Render(c, http.StatusCreated, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
}

func (s *Handler) revokeLink(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	link, err := s.opts.Links.Revoke(c.Request().Context(), b.ID, c.Param("id"))
	back := "/admin/boards/" + url.PathEscape(b.ID) + "/sharing"
	if errors.Is(err, access.ErrNotFound) {
		return request.NotFound("Link not found", "That share link does not exist (already revoked?).", templates.Link{Label: "Sharing", Href: back})
	}
	if err != nil {
		return err
	}
	before := linkLabel(link)
	if link.Member != "" {
		before = "personal " + before
	}
	s.audit(c, audit.Entry{Action: "link.revoke", Board: b.ID, Member: link.Member, Before: before, After: "(revoked)"})
	return s.done(c, back, "Link "+link.Name+" revoked: pages opened with it stop within a second.")
}

// rotateEmbed makes a new embed secret for the board, ending the old one
// and every signed URL and live widget made with it, and shows it once.
func (s *Handler) rotateEmbed(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	if s.opts.Embeds == nil {
		return request.NotFound("Signed embeds are off", "This server keeps no embed secrets.")
	}
	had, err := s.opts.Embeds.Has(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	secret, err := s.opts.Embeds.Rotate(c.Request().Context(), b.ID)
	if err != nil {
		return err
	}
	before := "(none)"
	if had {
		before = "(an earlier secret: its signed URLs stop working)"
	}
	s.audit(c, audit.Entry{Action: "embed.rotate", Board: b.ID, Before: before, After: "(a new secret)"})
	v, err := s.sharingView(c, &b)
	if err != nil {
		return err
	}
	v.NewSecret = secret
	return request.Render(c, http.StatusCreated, templates.AdminPage("Sharing · "+b.Title, v.Nav, templates.Sharing(v)))
}

// embedOff ends the board's embed secret: signed widgets stop.
func (s *Handler) embedOff(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	if s.opts.Embeds == nil {
		return request.NotFound("Signed embeds are off", "This server keeps no embed secrets.")
	}
	if err := s.opts.Embeds.Drop(c.Request().Context(), b.ID); err != nil {
		return err
	}
	s.audit(c, audit.Entry{Action: "embed.off", Board: b.ID, Before: "(a secret)", After: "(none: signed widgets stop)"})
	return s.done(c, "/admin/boards/"+url.PathEscape(b.ID)+"/sharing", "Signed embeds of "+b.Title+" are off: its signed widgets stop within a second.")
}

// linkLabel names a link in the audit log: never its token.
func linkLabel(l access.Link) string {
	out := l.Name + " (" + l.ID + ")"
	if !l.Expires.IsZero() {
		out += ", expires " + l.Expires.UTC().Format(time.RFC3339)
	}
	return out
}

// siteURL is the scheme and host this request came to, for links shown to
// copy.
func siteURL(c echo.Context) string {
	return c.Scheme() + "://" + c.Request().Host
}
