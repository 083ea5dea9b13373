package board

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// EraseMode is how a member is erased (a person's request to be forgotten).
// Either way the member's id and display name leave every store: Redis, the
// archive, the audit log and pending webhook deliveries.
type EraseMode string

const (
	// Pseudonymise (the default) replaces the member's id with a pseudonym
	// (ErasedPrefix and random hex) and drops its name; its scores stay, so
	// every other member keeps its rank, in open and archived periods alike.
	Pseudonymise EraseMode = "pseudonymise"
	// RemoveMember takes the member out of the open periods (all time, the
	// rolling windows and the current period of each kind): ranks there close
	// up. Closed periods, in Redis or archived, are final results: the member
	// is pseudonymised there, so the ranks others won stay true.
	RemoveMember EraseMode = "remove"
)

// ParseEraseMode reads a mode as the API and the console send it; "" is
// the default, Pseudonymise.
func ParseEraseMode(s string) (EraseMode, error) {
	switch EraseMode(strings.TrimSpace(s)) {
	case "", Pseudonymise:
		return Pseudonymise, nil
	case RemoveMember:
		return RemoveMember, nil
	}
	return "", NewFieldError(ErrInvalidInput, "mode", "must be %q (the default: keep the scores under a pseudonym) or %q (leave the open periods)", Pseudonymise, RemoveMember)
}

// ErasedPrefix starts every pseudonym an erasure gives.
const ErasedPrefix = "erased-"

// NewPseudonym is a fresh pseudonym: ErasedPrefix and 64 random bits in
// hex, so two erasures never meet and nothing of the old id is in it.
func NewPseudonym() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return ErasedPrefix + hex.EncodeToString(b)
}

// Erased is what an erasure did.
type Erased struct {
	Board string    `json:"board"`
	Mode  EraseMode `json:"mode"`
	// Status is "erased" (done now), "already_erased" (an earlier erasure
	// did it all: nothing of the id is left) or "incomplete" (some parts are
	// left: Pending names them; running the erasure again finishes them).
	Status    string   `json:"status"`
	Pseudonym string   `json:"pseudonym,omitempty"` // the member's id from now on ("" when removed everywhere or already erased)
	Done      []string `json:"done"`                // the parts done by this run, in order
	Pending   []string `json:"pending,omitempty"`   // the parts left
}

// Statuses of an erasure (Erased.Status).
const (
	ErasedNow        = "erased"
	ErasedBefore     = "already_erased"
	ErasedIncomplete = "incomplete"
)
