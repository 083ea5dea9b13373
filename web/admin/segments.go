package admin

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"

	"podium/board"
	"podium/web/request"
	"podium/web/templates"
)

// Segments is what the console's segment form needs from the store.
type Segments interface {
	SegmentsOf(ctx context.Context, b *board.Board, member string) (map[string]string, error)
	SetSegment(ctx context.Context, boardID, member, attr, value string, by board.Author) (string, bool, error)
}

// memberSegments fills the manage page's segment panel for a looked-up
// member: "country NO", one per attribute it holds a value of.
func (s *Handler) memberSegments(ctx context.Context, b *board.Board, member string, v *templates.ManageView) error {
	vs, err := s.opts.Store.SegmentsOf(ctx, b, member)
	if err != nil {
		return err
	}
	for _, a := range b.Segments {
		if val, ok := vs[a]; ok {
			v.MemberSegments = append(v.MemberSegments, a+" "+val)
		}
	}
	return nil
}

// setSegment gives a member a value of one of the board's attributes, or
// takes it out of the attribute with an empty one, moving its scores in
// every period; the store writes the audit entry in the same step.
func (s *Handler) setSegment(c echo.Context) error {
	b, err := s.loadBoard(c)
	if err != nil {
		return err
	}
	member, attr, value := strings.TrimSpace(formValue(c, "member")), formValue(c, "attr"), strings.TrimSpace(formValue(c, "value"))
	errs := formErrors{}
	if err := board.CheckMember(member); err != nil {
		errs["member"] = request.Reason(err)
	}
	switch {
	case len(b.Segments) == 0:
		errs["attr"] = "this board declares no segments: add them in its settings first"
	case !b.HasSegment(attr):
		errs["attr"] = "pick one of the board's attributes: " + strings.Join(b.Segments, ", ")
	case value != "":
		if err := board.CheckSegmentValue(attr, value); err != nil {
			errs["value"] = request.Reason(err)
		}
	}
	if len(errs) > 0 {
		return s.formFailed(c, &b, "segment", errs)
	}
	by := board.Author{Actor: s.actor(c), Reason: strings.TrimSpace(formValue(c, "reason"))}
	left, changed, err := s.opts.Store.SetSegment(c.Request().Context(), b.ID, member, attr, value, by)
	if err != nil {
		if fes := board.FieldErrors(err); len(fes) > 0 {
			return s.formFailed(c, &b, "segment", formErrors{"value": fes[0].Message})
		}
		return err
	}
	msg := member + "'s " + attr + " is now " + value + "."
	switch {
	case !changed && value == "":
		msg = member + " had no " + attr + "."
	case !changed:
		msg = member + "'s " + attr + " was already " + value + "."
	case value == "":
		msg = member + " no longer has a " + attr + " (was " + left + ")."
	case left != "":
		msg = member + " moved from " + attr + " " + left + " to " + value + ", with their scores."
	}
	return s.done(c, backTo(&b, member), msg)
}
