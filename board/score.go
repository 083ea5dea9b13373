package board

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxExact is the largest magnitude at which every integer is a float64: 2^53.
// Scores are stored as the sorted set's own double, so any value within it is
// kept and shown exactly; beyond it a later increment could silently round.
const MaxExact = 1 << 53

// Limits of member ids and display names.
const (
	MaxMemberLen = 128 // bytes
	MaxNameLen   = 64  // characters
)

// Op is how a submitted value combines with the member's current score.
type Op string

// Score operators.
const (
	Incr Op = "incr" // add the value
	Decr Op = "decr" // subtract the value
	Set  Op = "set"  // replace the score
	Best Op = "best" // keep the better of the current score and the value
)

// ParseOp accepts an operator name; empty means Incr.
func ParseOp(s string) (Op, error) {
	switch op := Op(s); op {
	case "":
		return Incr, nil
	case Incr, Decr, Set, Best:
		return op, nil
	}
	return "", fieldErr(ErrInvalidInput, "op", "%q is not one of incr, decr, set, best", s)
}

// MaxScore is the largest magnitude a board keeps exactly: 2^53 for whole
// numbers, and 2^53 / 10^d for d decimal places so that every value with d
// places stays distinct and exact.
func (f Format) MaxScore() float64 {
	if f.Type == Decimal {
		return MaxExact / math.Pow10(f.Decimals)
	}
	return MaxExact
}

// CheckScore refuses values the board cannot keep exactly: non-finite, beyond
// MaxScore, a fraction on a whole-number board, or more places than a decimal
// board shows. It returns the value with negative zero made zero.
func (f Format) CheckScore(v float64) (float64, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fieldErr(ErrInvalidScore, "score", "must be a finite number")
	case math.Abs(v) > f.MaxScore():
		return 0, fieldErr(ErrInvalidScore, "score", "must be within ±%s on this board", strconv.FormatFloat(f.MaxScore(), 'f', -1, 64))
	}
	switch f.Type {
	case Integer, Duration:
		if v != math.Trunc(v) {
			return 0, fieldErr(ErrInvalidScore, "score", "must be a whole number on this board")
		}
	case Decimal:
		if places(v) > f.Decimals {
			return 0, fieldErr(ErrInvalidScore, "score", "has more than %d decimal places", f.Decimals)
		}
	}
	return v + 0, nil // -0 + 0 == +0
}

// places counts the decimals of v's shortest round-trip form.
func places(v float64) int {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// CheckMember refuses member ids that are empty, longer than MaxMemberLen
// bytes, not UTF-8, or hold control characters.
func CheckMember(id string) error {
	switch {
	case id == "":
		return fieldErr(ErrInvalidMember, "member", "is required")
	case len(id) > MaxMemberLen:
		return fieldErr(ErrInvalidMember, "member", "is longer than %d bytes", MaxMemberLen)
	case !utf8.ValidString(id):
		return fieldErr(ErrInvalidMember, "member", "is not valid UTF-8")
	case hasControl(id):
		return fieldErr(ErrInvalidMember, "member", "holds control characters")
	case strings.TrimSpace(id) != id:
		return fieldErr(ErrInvalidMember, "member", "starts or ends with a space")
	}
	return nil
}

// CheckName refuses display names that are empty, too long or unprintable.
func CheckName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fieldErr(ErrInvalidInput, "name", "is required")
	case !utf8.ValidString(name) || hasControl(name):
		return fieldErr(ErrInvalidInput, "name", "must be printable text")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return fieldErr(ErrInvalidInput, "name", "is longer than %d characters", MaxNameLen)
	}
	return nil
}

// Display writes v the way the board shows scores: grouped thousands, fixed
// decimals, or m:ss.mmm, with the board's prefix and suffix. A value that an
// outside writer stored with more precision than the format shows is written
// in full rather than rounded, so what is shown is what is stored.
func (f Format) Display(v float64) string {
	var s string
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		s = strconv.FormatFloat(v, 'g', -1, 64)
	case f.Type == Duration:
		s = duration(v)
	case f.Type == Decimal:
		s = strconv.FormatFloat(v, 'f', f.Decimals, 64)
		if p, _ := strconv.ParseFloat(s, 64); p != v {
			s = strconv.FormatFloat(v, 'f', -1, 64)
		}
		s = group(s)
	default:
		s = group(strconv.FormatFloat(v, 'f', -1, 64))
	}
	return f.Prefix + s + f.Suffix
}

// group puts thousands separators into the integer part of a plain decimal.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String() + frac
}

// duration writes milliseconds as m:ss.mmm, or h:mm:ss.mmm from an hour on.
func duration(v float64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	ms := math.Floor(v)
	rest := ""
	if frac := v - ms; frac != 0 {
		rest = strings.TrimPrefix(strconv.FormatFloat(frac, 'f', -1, 64), "0.")
	}
	if ms > MaxExact {
		return sign + strconv.FormatFloat(v, 'f', -1, 64) + " ms"
	}
	n := int64(ms)
	h, m, s, milli := n/3_600_000, n/60_000%60, n/1000%60, n%1000
	if h > 0 {
		return sign + strconv.FormatInt(h, 10) + ":" + pad2(m) + ":" + pad2(s) + "." + pad3(milli) + rest
	}
	return sign + strconv.FormatInt(m, 10) + ":" + pad2(s) + "." + pad3(milli) + rest
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

func pad3(n int64) string {
	switch {
	case n < 10:
		return "00" + strconv.FormatInt(n, 10)
	case n < 100:
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
