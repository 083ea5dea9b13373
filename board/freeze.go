package board

import (
	"errors"
	"slices"
	"time"
)

// CheckFrozen refuses, while a board is frozen or a freeze is scheduled,
// the changes its frozen copy could not follow: the periods and the time
// zone decide which periods the copy holds (fixed when the freeze is set),
// and the rank style and team mode decide the dense and team indexes the
// copy was taken with. Unfreeze (or cancel the freeze) first.
func CheckFrozen(old, upd *Board) error {
	if old.FreezeAt.IsZero() {
		return nil
	}
	const why = "cannot change while the board is frozen or a freeze is set: unfreeze it first"
	var errs []error
	if !slices.Equal(old.Periods, upd.Periods) {
		errs = append(errs, NewFieldError(ErrInvalidBoard, "periods", why))
	}
	if old.TimeZone != upd.TimeZone {
		errs = append(errs, NewFieldError(ErrInvalidBoard, "time_zone", why))
	}
	if old.RankStyle != upd.RankStyle {
		errs = append(errs, NewFieldError(ErrInvalidBoard, "rank_style", why))
	}
	if old.Teams != upd.Teams {
		errs = append(errs, NewFieldError(ErrInvalidBoard, "teams", why))
	}
	return errors.Join(errs...)
}

// FrozenSince tells whether b's public standings are frozen at now, and
// since when. A freeze set for later is not frozen yet, and a freeze whose
// reveal time has come is over, even before the scheduler lifts it.
func (b *Board) FrozenSince(now time.Time) (time.Time, bool) {
	frozen := !b.FreezeAt.IsZero() && !now.Before(b.FreezeAt) && (b.RevealAt.IsZero() || now.Before(b.RevealAt))
	return b.FreezeAt, frozen
}
