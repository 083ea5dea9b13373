package board

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Fair-play rules. A board may bound what a submission carries and what it
// does to a member: the smallest and largest value (MinValue, MaxValue),
// the highest score a member may reach in any period the write touches
// (MaxScore), and how far a member's score may rise in any sliding minute
// or hour (MaxRisePerMinute, MaxRisePerHour). Every bound is a whole
// number of the board's unit (Format.Unit: a point, a millisecond, 0.01 on
// a 2-place board), the unit scores are kept in. The write script checks
// them (redisstore/lua/lib/rules.lua), so the API, the console and outside
// writers (FCALL) are held to them alike; a write that breaks one is
// refused with nothing written, or held for review when OnBreak is
// RulesHold (redisstore/held.go).
//
// A rise is movement in the board's better direction (up on
// higher-is-better boards, down on lower-is-better ones) of the member's
// score in all time, or else the board's longest calendar period, or else
// its first rolling window; a member without a score there starts from 0.
// Rises are kept per member in the board's hash slot for an hour, second
// by second, and do not reset when a period does.

// Rules are a board's fair-play rules; a nil pointer is no bound.
type Rules struct {
	MinValue         *int64 `json:"min_value,omitempty"`
	MaxValue         *int64 `json:"max_value,omitempty"`
	MaxScore         *int64 `json:"max_score,omitempty"`
	MaxRisePerMinute *int64 `json:"max_rise_per_minute,omitempty"`
	MaxRisePerHour   *int64 `json:"max_rise_per_hour,omitempty"`
	// OnBreak is what a write breaking a rule gets: RulesRefuse (also
	// when empty) or RulesHold.
	OnBreak string `json:"on_break,omitempty"`
}

// What a write breaking a rule gets.
const (
	RulesRefuse = "refuse" // refused (422 rule_broken), nothing written
	RulesHold   = "hold"   // kept in the board's review queue, unapplied
)

// Rule names, as the API, the definition hash and errors spell them.
const (
	RuleMinValue         = "min_value"
	RuleMaxValue         = "max_value"
	RuleMaxScore         = "max_score"
	RuleMaxRisePerMinute = "max_rise_per_minute"
	RuleMaxRisePerHour   = "max_rise_per_hour"
)

// ErrRuleBroken refuses a write that breaks one of the board's rules.
var ErrRuleBroken = errors.New("rule broken")

// RuleError names the rule a refused write broke and its bound.
type RuleError struct {
	Rule  string
	Limit string // the bound, as the board shows scores
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("the write breaks the board's rule %s (%s); nothing was written", e.Rule, RuleText(e.Rule, e.Limit))
}

func (e *RuleError) Unwrap() error { return ErrRuleBroken }

// RuleText says what a rule with bound limit means, in a few words.
func RuleText(rule, limit string) string {
	switch rule {
	case RuleMinValue:
		return "a value of at least " + limit
	case RuleMaxValue:
		return "a value of at most " + limit
	case RuleMaxScore:
		return "a score of at most " + limit
	case RuleMaxRisePerMinute:
		return "a rise of at most " + limit + " in any minute"
	case RuleMaxRisePerHour:
		return "a rise of at most " + limit + " in any hour"
	}
	return rule
}

// Holds reports whether a write breaking r is held for review rather than
// refused.
func (r *Rules) Holds() bool { return r != nil && r.OnBreak == RulesHold }

// Clone is a deep copy of r (nil for nil).
func (r *Rules) Clone() *Rules {
	if r == nil {
		return nil
	}
	c := *r
	for _, name := range RuleNames {
		if p := c.Bound(name); *p != nil {
			v := **p
			*p = &v
		}
	}
	return &c
}

// RuleNames are the rules with a bound, in the order they are checked.
var RuleNames = []string{RuleMinValue, RuleMaxValue, RuleMaxScore, RuleMaxRisePerMinute, RuleMaxRisePerHour}

// Bound is where r keeps the bound of rule name (one of RuleNames).
func (r *Rules) Bound(name string) **int64 {
	switch name {
	case RuleMinValue:
		return &r.MinValue
	case RuleMaxValue:
		return &r.MaxValue
	case RuleMaxScore:
		return &r.MaxScore
	case RuleMaxRisePerMinute:
		return &r.MaxRisePerMinute
	case RuleMaxRisePerHour:
		return &r.MaxRisePerHour
	}
	panic("board: no rule " + name)
}

// Encode is r as the definition hash keeps it ("min_value=0 max_score=1000
// on_break=hold"; "" for no rules): readable in redis-cli, and read by the
// write script without JSON.
func (r *Rules) Encode() string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, name := range RuleNames {
		if v := *r.Bound(name); v != nil {
			parts = append(parts, name+"="+strconv.FormatInt(*v, 10))
		}
	}
	if r.OnBreak == RulesHold {
		parts = append(parts, "on_break=hold")
	}
	return strings.Join(parts, " ")
}

// DecodeRules reads Encode's text; nil for "".
func DecodeRules(s string) (*Rules, error) {
	if s == "" {
		return nil, nil
	}
	r := &Rules{}
	for _, f := range strings.Fields(s) {
		name, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("rules: %q is not name=value", f)
		}
		if name == "on_break" {
			r.OnBreak = val
			continue
		}
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("rules: %s: %w", name, err)
		}
		if !slices.Contains(RuleNames, name) {
			return nil, fmt.Errorf("rules: unknown rule %q", name)
		}
		*r.Bound(name) = &v
	}
	return r, nil
}

// checkRules holds a board's rules to whole numbers within ±2^53, a
// smallest value no larger than the largest, positive rises, and a known
// on_break.
func (b *Board) checkRules(p *problems) {
	r := b.Rules
	if r == nil {
		return
	}
	for _, name := range RuleNames {
		switch v := *r.Bound(name); {
		case v == nil:
		case *v > MaxExact || *v < -MaxExact:
			p.add("rules."+name, "must be a whole number of the board's unit within ±2^53")
		case (name == RuleMaxRisePerMinute || name == RuleMaxRisePerHour) && *v <= 0:
			p.add("rules."+name, "must be at least 1 (a whole number of the board's unit)")
		}
	}
	if r.MinValue != nil && r.MaxValue != nil && *r.MinValue > *r.MaxValue {
		p.add("rules.max_value", "must not be smaller than min_value")
	}
	if r.OnBreak != "" && r.OnBreak != RulesRefuse && r.OnBreak != RulesHold {
		p.add("rules.on_break", "must be refuse or hold")
	}
}
