package board

import (
	"errors"
	"fmt"
)

// Sentinel errors; callers map them to status codes with errors.Is.
var (
	ErrNotFound       = errors.New("not found")
	ErrExists         = errors.New("already exists")
	ErrInvalidBoard   = errors.New("invalid board definition")
	ErrInvalidPeriod  = errors.New("invalid period")
	ErrPeriodDisabled = errors.New("period not enabled on this board")
	ErrInvalidScore   = errors.New("invalid score")
	ErrInvalidMember  = errors.New("invalid member")
	ErrInvalidInput   = errors.New("invalid input")
	ErrImmutable      = errors.New("cannot change after creation")
	// ErrIdempotencyReused: an idempotency key came back with a different
	// request than the one it was first used for; nothing was written.
	ErrIdempotencyReused = errors.New("idempotency key reused for a different request")
	// ErrDefinitionChanged: the board's definition changed under a write in a
	// way that changes what its values mean (the board was made again with
	// other decimal places); nothing was written, the client should resend.
	ErrDefinitionChanged = errors.New("board definition changed during the write")
	// ErrBusy: the board cannot take writes for a moment (its scores are being
	// converted, or its definition keeps changing); retry shortly.
	ErrBusy = errors.New("board busy")
	// ErrGone: a closed period whose scores have left Redis and which the
	// archive does not hold (a lost archive, or keys removed by hand).
	ErrGone = errors.New("period no longer kept")
	// ErrTeamsNotArchived: a closed period read from the archive, which
	// holds its members but not its team standing (the period was archived
	// before the archive kept team standings, or while its board kept none).
	ErrTeamsNotArchived = errors.New("team standing not archived")
	// ErrArchived: a change to a closed period that lives only in the
	// archive now; archived periods no longer change.
	ErrArchived = errors.New("period archived")
)

// FieldError names the field of a definition or submission that is wrong, so a
// form can show its message beside that field.
type FieldError struct {
	Field   string
	Message string
	kind    error
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// Unwrap lets errors.Is match the sentinel the field belongs to.
func (e *FieldError) Unwrap() error { return e.kind }

// NewFieldError refuses one field: the error is kind (errors.Is), and its
// message says what is wrong with the field.
func NewFieldError(kind error, field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...), kind: kind}
}

var (
	// ErrFrozen: a board whose standings are frozen already cannot be frozen
	// again; unfreeze it first.
	ErrFrozen = errors.New("board already frozen")
	// ErrNotFrozen: an unfreeze of a board that is not frozen (nor about to be).
	ErrNotFrozen = errors.New("board not frozen")
)
