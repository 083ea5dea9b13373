package pages

import (
	"net/url"
	"strconv"

	"podium/board"
)

// Page sizes of the board page.
const (
	defaultSize = 25
	maxSize     = 100
)

// boardURL links to a board in a period; the current period carries no key
// so the link keeps meaning "now" when the period turns over.
func boardURL(id string, p board.Period, current bool, page, size int, q string) string {
	v := periodValues(p, current)
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if size != defaultSize && size > 0 {
		v.Set("size", strconv.Itoa(size))
	}
	if q != "" {
		v.Set("q", q)
	}
	return "/b/" + url.PathEscape(id) + "?" + v.Encode()
}

// periodValues names a period in a query: the kind, and the key unless it is
// the current one (so a link to "this week" follows the roll-over).
func periodValues(p board.Period, current bool) url.Values {
	v := url.Values{}
	v.Set("period", string(p.Kind))
	if !current && p.Kind.Calendar() {
		v.Set("at", p.Key)
	}
	return v
}

func periodQuery(p board.Period, current bool) string { return periodValues(p, current).Encode() }

func memberURL(id, member string) string {
	return "/b/" + url.PathEscape(id) + "/m/" + url.PathEscape(member)
}

func aroundURL(id, member string, p board.Period, current bool) string {
	return "/b/" + url.PathEscape(id) + "/around/" + url.PathEscape(member) + "?" + periodQuery(p, current)
}

// exportURL downloads a period whole, as CSV or JSON; the period is named
// with its key, so the file is the one the page showed.
func exportURL(id string, p board.Period, format string) string {
	return "/b/" + url.PathEscape(id) + "/export?" + periodQuery(p, false) + "&format=" + format
}

func embedURL(id string, p board.Period, current bool, limit int) string {
	return "/embed/" + url.PathEscape(id) + "?" + periodQuery(p, current) + "&limit=" + strconv.Itoa(limit)
}

// liveQuery is the /live query string of a view.
func liveQuery(id string, p board.Period, current bool, extra url.Values) string {
	v := periodValues(p, current)
	v.Set("board", id)
	for k, vals := range extra {
		v[k] = vals
	}
	return v.Encode()
}
