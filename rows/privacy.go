package rows

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"

	"podium/board"
)

// A board's privacy mode (board.Board.Names and TopOnly) decides what the
// shared surfaces show of its members: the pages read without a role, share
// links, the widget, the wall display, API reads without a key, their live
// frames and exports. Every one of them passes its entries through a Lens,
// so they all agree.

// Sight is what one reader may see of a board's members.
type Sight struct {
	// Full sees everything, whatever the privacy mode: the console, API
	// keys, signed-in users with a role on the board.
	Full bool
	// Me is the member whose personal link the reader holds: their own row
	// is shown wherever it is, with their own name and id.
	Me string
	// OnlyMe: the personal link is the reader's only access to the board (a
	// private board), so no other member's page or around-me opens.
	OnlyMe bool
}

// Shared is the sight of a surface made to be seen by others, the widget
// and the wall display: the privacy mode applies whoever opened it.
var Shared = Sight{}

// Masker names members where a board hides names: a stand-in for the id
// ("anon-7f3a9c01d2e4b5a6") and a name (initials, or "Player 7F3A"), both
// stable per member within a board and not reversible to the id without
// the key, which never leaves the server.
type Masker struct{ key []byte }

// NewMasker makes a masker with the site's pseudonym key
// (access.PseudonymKey), shared by every replica so they name alike.
func NewMasker(key []byte) *Masker { return &Masker{key: key} }

// Key is a key of its own for purpose, made from the masker's: the API's
// cursors are sealed with one (web/api/cursor.go), so that what they hold
// stays hidden from whoever holds them, alike on every replica.
func (m *Masker) Key(purpose string) []byte {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte("podium-key\x00" + purpose))
	return h.Sum(nil)
}

// tag is the keyed hash of a member within a board. The board's creation
// time is part of it: a board deleted and made again under the id is
// another board, whose members get other stand-ins.
func (m *Masker) tag(b *board.Board, member string) string {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte("podium-pseudonym\x00" + b.ID + "\x00" + strconv.FormatInt(b.Created.UnixMicro(), 10) + "\x00" + member))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Alias is how a board that hides names shows member: its stand-in id and
// the name shown. name is the member's display name ("" for none).
func (m *Masker) Alias(b *board.Board, member, name string) (id, shown string) {
	t := m.tag(b, member)
	id = "anon-" + t
	if b.Names == board.Initials {
		if name == "" {
			name = member
		}
		return id, Initials(name)
	}
	return id, "Player " + strings.ToUpper(t[:4])
}

// Initials writes a name as the initials of its first three words:
// "Alice Liddell" is "A. L.", "bob_smith" is "B. S.".
func Initials(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []string
	for _, w := range words {
		if len(out) == 3 {
			break
		}
		r := []rune(w)[0]
		out = append(out, string(unicode.ToUpper(r))+".")
	}
	if len(out) == 0 {
		return "?"
	}
	return strings.Join(out, " ")
}

// Lens is what one reader sees of one board: its sight through the board's
// privacy mode.
type Lens struct {
	Board  *board.Board
	Sight  Sight
	Masker *Masker
}

// Limited reports whether the privacy mode applies to this reader.
func (l Lens) Limited() bool { return !l.Sight.Full && l.Board.Guarded() }

// own reports whether member is the reader's own (a personal link's).
func (l Lens) own(member string) bool { return l.Sight.Me != "" && member == l.Sight.Me }

// Opens reports whether the reader may open a member's page or around-me:
// their own always; another's only on a board without a privacy mode, and
// not through a personal link alone.
func (l Lens) Opens(member string) bool {
	switch {
	case l.Sight.Full || l.own(member):
		return true
	case l.Sight.OnlyMe:
		return false
	}
	return !l.Board.Guarded()
}

// Counts reports whether the reader is told how many members a period
// holds ("of 30", percentiles): not where only the top is shown.
func (l Lens) Counts() bool { return l.Sight.Full || l.Board.TopOnly <= 0 }

// Total is the number of members the reader is told a period holds: the
// shown places only, where only the top is shown.
func (l Lens) Total(n int) int {
	if l.Counts() {
		return n
	}
	return min(n, l.Board.TopOnly)
}

// Shows reports whether the reader sees the row at position pos (0-based,
// in board order) of member.
func (l Lens) Shows(pos int, member string) bool {
	return l.Counts() || pos < l.Board.TopOnly || l.own(member)
}

// Hides reports whether member's name and id are hidden from the reader.
func (l Lens) Hides(member string) bool {
	return !l.Sight.Full && l.Board.Names != "" && l.Board.Names != board.FullNames && !l.own(member)
}

// Entries keeps the entries the reader may see, each named as the reader
// may see it (Entry.Masked for a stand-in). Their Position says where each
// stands. The slice given is not changed.
func (l Lens) Entries(es []board.Entry) []board.Entry {
	if !l.Limited() {
		return es
	}
	out := make([]board.Entry, 0, len(es))
	for _, e := range es {
		if !l.Shows(e.Position, e.Member) {
			continue
		}
		out = append(out, l.Entry(e))
	}
	return out
}

// SegmentEntries is Entries for a segment's page: a reader the privacy
// mode limits sees the members it would see on the whole period's page
// (its top N by their place there), no more, each named as on that page.
func (l Lens) SegmentEntries(es []board.Entry) []board.Entry {
	if !l.Limited() {
		return es
	}
	out := make([]board.Entry, 0, len(es))
	for _, e := range es {
		if l.Shows(e.GlobalPosition, e.Member) {
			out = append(out, l.Entry(e))
		}
	}
	return out
}

// Entry is e named as the reader may see it.
func (l Lens) Entry(e board.Entry) board.Entry {
	if l.Hides(e.Member) {
		e.Member, e.Name = l.Masker.Alias(l.Board, e.Member, e.Name)
		e.Masked, e.Key = true, "" // the key holds the id
	}
	return e
}

// Name is how the reader sees a member named name ("" for none).
func (l Lens) Name(member, name string) string {
	if l.Hides(member) {
		_, name = l.Masker.Alias(l.Board, member, name)
		return name
	}
	if name == "" {
		return member
	}
	return name
}
