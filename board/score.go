package board

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxExact is the largest magnitude at which every integer is a float64: 2^53.
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
	return "", NewFieldError(ErrInvalidInput, "op", "%q is not one of incr, decr, set, best", s)
}

// Scores are kept in Redis in integer units of the board's Unit: 1 for
// integer and duration boards (points, milliseconds), 10^-d for decimal boards
// with d places, so $12.34 on a 2-place board is the sorted-set score 1234.
// Every value a board accepts is then a whole number of units within ±2^53,
// which a double holds exactly, and increments never round: what is shown is
// exactly what was sent. Outside writers (ZINCRBY, FCALL podium_submit) write
// units too. Every float64 score in this package's API is in units; Number
// and Display turn units into decimal text, ParseScore turns text into units.

// Unit is the value of one stored unit as a decimal string: "1", "0.01".
func (f Format) Unit() string {
	if f.Type != Decimal || f.Decimals <= 0 {
		return "1"
	}
	return "0." + strings.Repeat("0", f.Decimals-1) + "1"
}

func (f Format) places() int {
	if f.Type == Decimal {
		return f.Decimals
	}
	return 0
}

// MaxText is the largest magnitude a board accepts, as exact decimal text:
// 2^53 units.
func (f Format) MaxText() string { return f.Number(MaxExact) }

// maxScoreLen bounds the text ParseScore reads, so that no exponent or digit
// string makes it allocate or loop: 2^53 has 16 digits, 6 places at most, and
// room for a sign, a point, an exponent and leading zeros.
const maxScoreLen = 64

// ParseScore reads a decimal number (JSON number syntax, an optional leading
// '+', and optional ',' thousands separators when grouped is true) exactly,
// without passing through a float64, and returns it in the board's units. It
// refuses, naming the field "score", anything the board cannot keep exactly:
// more places than the board has, a fraction on a whole-number board, or a
// magnitude beyond 2^53 units.
func (f Format) ParseScore(text string, grouped bool) (float64, error) {
	bad := func() (float64, error) {
		return 0, NewFieldError(ErrInvalidScore, "score", "must be a number such as 120 or 9.58")
	}
	t := text
	if grouped && strings.Contains(t, ",") {
		// Commas only as thousands separators of the integer part: "1,234.5"
		// is 1234.5, but "12,5" (a decimal comma) or "1.2,5" is refused
		// rather than read as something else.
		if !groupedNumber.MatchString(t) {
			return 0, NewFieldError(ErrInvalidScore, "score", "use ',' only between groups of three digits (1,234.50) and '.' for decimals")
		}
		t = strings.ReplaceAll(t, ",", "")
	}
	if t == "" || len(t) > maxScoreLen {
		return bad()
	}
	neg := false
	switch t[0] {
	case '-':
		neg, t = true, t[1:]
	case '+':
		t = t[1:]
	}
	mant, exp, hasExp := t, "", false
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant, exp, hasExp = t[:i], t[i+1:], true
	}
	intPart, frac, hasPoint := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || (hasPoint && (frac == "" || !allDigits(frac))) {
		return bad()
	}
	e := 0
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			if len(exp) == 1 || !allDigits(exp[1:]) {
				return bad()
			}
		} else if exp == "" || !allDigits(exp) {
			return bad()
		}
		n, err := strconv.Atoi(exp)
		if err != nil || n > maxScoreLen || n < -maxScoreLen {
			return 0, f.outOfRange()
		}
		e = n
	}
	// value = digits * 10^(e - len(frac)); units = value * 10^places.
	digits := strings.TrimLeft(intPart+frac, "0")
	shift := e - len(frac) + f.places()
	if digits == "" {
		return 0, nil // any spelling of zero, -0 included
	}
	if shift < 0 {
		cut := len(digits) + shift
		if cut < 0 || strings.TrimLeft(digits[max(cut, 0):], "0") != "" {
			if f.Type == Decimal {
				return 0, NewFieldError(ErrInvalidScore, "score", "has more than %d decimal places", f.Decimals)
			}
			return 0, NewFieldError(ErrInvalidScore, "score", "must be a whole number on this board")
		}
		digits = digits[:cut]
	} else {
		if len(digits)+shift > 17 {
			return 0, f.outOfRange()
		}
		digits += strings.Repeat("0", shift)
	}
	if len(digits) > 17 {
		return 0, f.outOfRange()
	}
	u, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || u > MaxExact {
		return 0, f.outOfRange()
	}
	if neg {
		u = -u
	}
	return float64(u), nil
}

var groupedNumber = regexp.MustCompile(`^[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$`)

func (f Format) outOfRange() error {
	return NewFieldError(ErrInvalidScore, "score", "must be within ±%s on this board", f.MaxText())
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// CheckScore refuses a value in units that the board cannot keep exactly:
// non-finite, beyond ±2^53 units, or not a whole number of units. It returns
// the value with negative zero made zero.
func (f Format) CheckScore(units float64) (float64, error) {
	switch {
	case math.IsNaN(units) || math.IsInf(units, 0):
		return 0, NewFieldError(ErrInvalidScore, "score", "must be a finite number")
	case math.Abs(units) > MaxExact:
		return 0, f.outOfRange()
	case units != math.Trunc(units):
		if f.Type == Decimal {
			return 0, NewFieldError(ErrInvalidScore, "score", "has more than %d decimal places", f.Decimals)
		}
		return 0, NewFieldError(ErrInvalidScore, "score", "must be a whole number on this board")
	}
	return units + 0, nil // -0 + 0 == +0
}

// Number writes a score in units as exact decimal text in the board's unit,
// without grouping: 1234 units on a 2-place board is "12.34". The API sends
// scores as JSON numbers with this text, so nothing rounds on the way out. A
// value an outside writer stored with a fraction of a unit is written in full.
func (f Format) Number(units float64) string {
	if math.IsNaN(units) || math.IsInf(units, 0) {
		return strconv.FormatFloat(units, 'g', -1, 64)
	}
	return shiftPoint(strconv.FormatFloat(units, 'f', -1, 64), f.places())
}

// shiftPoint divides a plain decimal string by 10^d exactly, by moving its
// point, and trims trailing zeros of the fraction.
func shiftPoint(s string, d int) string {
	if d == 0 {
		return s
	}
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart) <= d {
		intPart = strings.Repeat("0", d-len(intPart)+1) + intPart
	}
	cut := len(intPart) - d
	intPart, frac = intPart[:cut], intPart[cut:]+frac
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		if intPart == "0" {
			return "0"
		}
		return sign + intPart
	}
	return sign + intPart + "." + frac
}

// CheckMember refuses member ids that are empty, longer than MaxMemberLen
// bytes, not UTF-8, or hold control characters.
func CheckMember(id string) error {
	switch {
	case id == "":
		return NewFieldError(ErrInvalidMember, "member", "is required")
	case len(id) > MaxMemberLen:
		return NewFieldError(ErrInvalidMember, "member", "is longer than %d bytes", MaxMemberLen)
	case !utf8.ValidString(id):
		return NewFieldError(ErrInvalidMember, "member", "is not valid UTF-8")
	case strings.ContainsRune(id, utf8.RuneError):
		return NewFieldError(ErrInvalidMember, "member", "holds U+FFFD, what text that was not valid becomes (a lone surrogate such as \\ud800 in JSON): two ids would become one")
	case HasControl(id):
		return NewFieldError(ErrInvalidMember, "member", "holds control characters")
	case strings.ContainsFunc(id, func(r rune) bool { return unicode.Is(unicode.Cf, r) }):
		// Invisible format characters (zero-width spaces and joiners, bidi
		// controls) would make two ids look the same, or reorder the text
		// around an id wherever it is shown.
		return NewFieldError(ErrInvalidMember, "member", "holds invisible formatting characters (zero-width or bidi controls)")
	case strings.TrimSpace(id) != id:
		return NewFieldError(ErrInvalidMember, "member", "starts or ends with a space")
	}
	return nil
}

// CheckName refuses display names that are empty, too long or unprintable.
func CheckName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return NewFieldError(ErrInvalidInput, "name", "is required")
	case !utf8.ValidString(name) || HasControl(name) || strings.ContainsRune(name, utf8.RuneError):
		return NewFieldError(ErrInvalidInput, "name", "must be printable text (U+FFFD, what text that was not valid becomes, is refused)")
	case strings.ContainsFunc(name, IsBidiOrInvisible):
		return NewFieldError(ErrInvalidInput, "name", "holds bidi controls or invisible characters, which could reorder the text around it")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return NewFieldError(ErrInvalidInput, "name", "is longer than %d characters", MaxNameLen)
	}
	return nil
}

// IsBidiOrInvisible is a character a display name may not hold: bidi
// embeddings, overrides, isolates and marks, which reorder the text around the
// name, and invisible spaces. Joiners (ZWJ, ZWNJ) and emoji tags stay: emoji
// sequences and some scripts need them. A webhook's URL may not hold one
// either (package hooks).
func IsBidiOrInvisible(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x200b, r == 0x2060, r == 0xfeff, r >= 0x2061 && r <= 0x2064, r == 0x00ad:
		return true
	}
	return false
}

// Display writes a score in units the way the board shows it: grouped
// thousands, exactly the board's decimals, or m:ss.mmm, with the board's
// prefix and suffix. A value an outside writer stored with a fraction of a
// unit is written in full rather than rounded, so what is shown is what is
// stored.
func (f Format) Display(units float64) string {
	var s string
	switch {
	case math.IsNaN(units) || math.IsInf(units, 0):
		s = strconv.FormatFloat(units, 'g', -1, 64)
	case f.Type == Duration:
		s = duration(units)
	case f.Type == Decimal:
		s = f.Number(units)
		intPart, frac, _ := strings.Cut(s, ".")
		if len(frac) < f.Decimals {
			frac += strings.Repeat("0", f.Decimals-len(frac))
		}
		s = group(intPart + "." + frac)
	default:
		s = group(strconv.FormatFloat(units, 'f', -1, 64))
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
