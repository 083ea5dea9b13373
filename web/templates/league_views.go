package templates

// LeaguesView is a board's league in a period: its rules and its tiers,
// highest first, each with its cohorts.
type LeaguesView struct {
	Title, BoardHref, Rules string
	PeriodTitle, Kind       string
	Prev, Next              *Link
	Tiers                   []LeagueTierView
	Frozen                  string // the freeze's notice, when the board is frozen
	Mine                    *MemberLeague
}

// LeagueTierView is one tier: its name, where it stands ("Tier 3 of 3")
// and its cohorts in the period.
type LeagueTierView struct {
	Name, Place, Summary string
	Cohorts              []Link // Label "Cohort 1", Href its standing, Current: the reader's own
	Members              []string
	Empty                string // said when no cohort is listed
}

// CohortView is one cohort's standing in a period, live.
type CohortView struct {
	BoardTitle, LeaguesHref, Tier, Cohort, Rules string
	PeriodTitle, Note                            string
	Prev, Next                                   *Link
	Table                                        Table
	Total                                        int
	Empty                                        string
	Privacy                                      string
	PrevPage, NextPage, PageLabel                string
	Live                                         LiveInfo
	Moves                                        []LeagueMoves // a closed period's: what its close did to the page's members
}

// LeagueMoves is the members of a cohort's page a close moved one way
// (Move "up" or "down") and the tier they went to.
type LeagueMoves struct {
	Move, To string
	Names    []string
}

// MemberLeague is a member's league in the league's current period, on
// the member page: its tier and, once placed, its cohort and its rank there.
type MemberLeague struct {
	Heading     string // "League", or "Your league" on the member's own link
	PeriodTitle string
	Tier        string
	Cohort      string // "" until a score of the period places the member
	Rank        string // "" without a score in the period now
	Of          string // members placed in the cohort; "" where counts are not shown
	Href        string // the cohort's standing
	LeaguesHref string
}
