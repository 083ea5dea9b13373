package api

// Cursors. A page of entries may continue from the row the page before it
// ended on (?after=<next>), so that a client walking a period that
// changes meanwhile neither skips nor repeats a member that keeps its
// place (board.Mark states the guarantee). A cursor holds that row's
// place, its score, its order key and its position, and what it belongs
// to: the board (its id and when it was made, so a board made again under
// the id is another) and the period.
//
// Why sealed. The order key is Redis' entry: the member's id behind its
// tie-break prefix. On a board whose privacy mode hides names, a reader
// without a key sees members only as stand-ins, and a readable cursor
// would hand them the last row's real id and the instant it reached its
// score. A cursor of positions only would keep the id but give those
// readers the skips and repeats of offsets. So every cursor is encrypted
// and authenticated (AES-256-GCM) under a key made from the pseudonym key
// (rows.Masker.Key), which never leaves the server and is the same on
// every replica: nobody can read one, nor make or change one (a changed
// byte is invalid_cursor, never a read of another place). Its nonce is a
// keyed hash of what it seals (as SIV makes it), so a page's cursor is
// the same for every reader and the cached answer's bytes serve them all;
// what a reader may see is decided when the cursor is used, not by who
// got it (request.ReadPageAfter: no cursor opens a place past a board's
// top_only).
//
// Wire: base64url without padding of version (1 byte), nonce (12),
// ciphertext and tag (16). Sealed: board id (uvarint length, bytes), its
// creation (varint µs), period (length, bytes), score (IEEE 754, 8 bytes
// big-endian), position (uvarint), order key (2 bytes of length,
// big-endian, then the bytes, then zeros to maxCursorKey). The key takes
// the same room whatever its length: a cursor's length would otherwise
// tell a reader of a board that hides names how long the last row's
// hidden id is (version 1 wrote it without the padding).

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"sync"

	"podium/board"
	"podium/rows"
)

const (
	cursorVersion = 2
	// maxCursorLen bounds a cursor in characters: the longest this server
	// makes (a 64-character board id, a 256-byte key) is about 560.
	maxCursorLen = 640
	// maxCursorKey bounds the order key a cursor keeps; a row with a longer
	// one (an outside writer's long member id) is marked by its position.
	maxCursorKey = 256
	cursorNonce  = 12
)

// cursors seals and opens cursors with one key.
type cursors struct {
	aead cipher.AEAD
	siv  []byte // the key of the nonces
}

func newCursors(m *rows.Masker) cursors {
	block, err := aes.NewCipher(m.Key("api-cursor")) // 32 bytes: AES-256
	if err != nil {
		panic(err) // a 32-byte key never fails
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return cursors{aead: aead, siv: m.Key("api-cursor-nonce")}
}

// cursorsOf is the cursors of masker m, made once per masker (one per
// process in practice).
var cursorsOf = func() func(m *rows.Masker) cursors {
	var made sync.Map // *rows.Masker -> cursors
	return func(m *rows.Masker) cursors {
		if c, ok := made.Load(m); ok {
			return c.(cursors)
		}
		c, _ := made.LoadOrStore(m, newCursors(m))
		return c.(cursors)
	}
}()

// cursorOf is what a cursor holds.
type cursorOf struct {
	board   string
	created int64
	period  string
	mark    board.Mark
}

func walkOf(b *board.Board, p board.Period, m board.Mark) cursorOf {
	return cursorOf{board: b.ID, created: b.Created.UnixMicro(), period: p.String(), mark: m}
}

func (c cursorOf) encode() []byte {
	out := make([]byte, 0, 48+len(c.board)+len(c.period)+maxCursorKey)
	out = binary.AppendUvarint(out, uint64(len(c.board)))
	out = append(out, c.board...)
	out = binary.AppendVarint(out, c.created)
	out = binary.AppendUvarint(out, uint64(len(c.period)))
	out = append(out, c.period...)
	out = binary.BigEndian.AppendUint64(out, math.Float64bits(c.mark.Score))
	out = binary.AppendUvarint(out, uint64(c.mark.Position))
	out = binary.BigEndian.AppendUint16(out, uint16(len(c.mark.Key)))
	out = append(out, c.mark.Key...)
	return append(out, make([]byte, maxCursorKey-len(c.mark.Key))...)
}

var errCursorShape = errors.New("not a cursor's contents")

// decodeCursor reads encode's bytes, all of them, or fails.
func decodeCursor(raw []byte) (cursorOf, error) {
	r := bytes.NewReader(raw)
	str := func(max int) (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(max) || n > uint64(r.Len()) {
			return "", errCursorShape
		}
		b := make([]byte, n)
		_, _ = r.Read(b)
		return string(b), nil
	}
	var c cursorOf
	var err error
	if c.board, err = str(128); err != nil {
		return c, err
	}
	if c.created, err = binary.ReadVarint(r); err != nil {
		return c, errCursorShape
	}
	if c.period, err = str(128); err != nil {
		return c, err
	}
	var bits [8]byte
	if n, _ := r.Read(bits[:]); n != 8 {
		return c, errCursorShape
	}
	c.mark.Score = math.Float64frombits(binary.BigEndian.Uint64(bits[:]))
	pos, err := binary.ReadUvarint(r)
	if err != nil || pos > math.MaxInt32 || math.IsNaN(c.mark.Score) {
		return c, errCursorShape
	}
	c.mark.Position = int(pos)
	var klen [2]byte
	if n, _ := r.Read(klen[:]); n != 2 || binary.BigEndian.Uint16(klen[:]) > maxCursorKey || r.Len() != maxCursorKey {
		return c, errCursorShape
	}
	key := make([]byte, maxCursorKey)
	_, _ = r.Read(key)
	c.mark.Key = string(key[:binary.BigEndian.Uint16(klen[:])])
	if !bytes.Equal(c.encode(), raw) { // one way to write each: the padding all zeros
		return c, errCursorShape
	}
	return c, nil
}

// seal writes the cursor of the page after mark m of period p of b.
func (cs cursors) seal(b *board.Board, p board.Period, m board.Mark) string {
	if len(m.Key) > maxCursorKey {
		m.Key = "" // too long to carry: the walk goes on by position
	}
	plain := walkOf(b, p, m).encode()
	h := hmac.New(sha256.New, cs.siv)
	h.Write([]byte{cursorVersion})
	h.Write(plain)
	out := append([]byte{cursorVersion}, h.Sum(nil)[:cursorNonce]...)
	out = cs.aead.Seal(out, out[1:], plain, []byte{cursorVersion})
	return base64.RawURLEncoding.EncodeToString(out)
}

// open reads a cursor given for period p of b: its mark, or an
// invalid_cursor error that says what is wrong with it.
func (cs cursors) open(raw string, b *board.Board, p board.Period) (board.Mark, error) {
	bad := func(format string, args ...any) (board.Mark, error) {
		ae := apiErr(400, "invalid_cursor", format, args...)
		ae.Field = "after"
		return board.Mark{}, ae
	}
	if len(raw) > maxCursorLen {
		return bad("after is longer than any cursor (%d characters at most): pass the next of a page as it came", maxCursorLen)
	}
	sealed, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || len(sealed) < 1+cursorNonce+cs.aead.Overhead() {
		return bad("after is not a cursor: pass the next of a page as it came")
	}
	if sealed[0] != cursorVersion {
		return bad("after is a cursor of another version of the API: start again from the first page")
	}
	plain, err := cs.aead.Open(nil, sealed[1:1+cursorNonce], sealed[1+cursorNonce:], sealed[:1])
	if err != nil {
		return bad("after is damaged, or was not made by this server: pass the next of a page as it came")
	}
	c, err := decodeCursor(plain)
	if err != nil {
		return bad("after is damaged: start again from the first page")
	}
	want := walkOf(b, p, c.mark)
	switch {
	case c.board != want.board || c.created != want.created:
		return bad("after is a cursor of another board")
	case c.period != want.period:
		return bad("after continues %s, not %s: ask for that period (at=), or start again from the first page", c.period, want.period)
	}
	return c.mark, nil
}
