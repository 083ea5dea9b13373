package templates

import "strings"

// EraseView is the page that erases a member of a board: what erasure does,
// the mode, and the member's id typed again to confirm.
type EraseView struct {
	Nav         AdminNav
	ID, Title   string // the board's
	Member      string // the member to erase (from the lookup), or as sent
	Typed, Mode string // the confirmation and the mode as sent
	Errors      map[string]string
	// Done and Pending: an erasure that stopped halfway (its parts).
	Done, Pending []string
}

// eraseFields are the erase form's fields, in the order it shows them.
var eraseFields = []formField{{"member", "e-member", "Member id"}, {"mode", "e-mode", "How"}, {"confirm", "e-confirm", "Type the member id again to confirm"}}

func eraseErrorLinks(v EraseView) []ErrorLink { return errorLinks(eraseFields, v.Errors, "erase-form") }

// listOr is items joined with commas, or none when there are none.
func listOr(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	return strings.Join(items, ", ")
}
