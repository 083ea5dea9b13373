package templates

// EmbedView is the widget.
type EmbedView struct {
	Title       string
	BoardHref   string
	PeriodTitle string
	Theme       string
	Table       Table
	Empty       string
	Board       string
	Live        LiveInfo
	Noun        string // "team teams" on a team widget (what live.js counts)
}
