package request

import (
	"fmt"
	"net/http"
	"time"

	"podium/web/templates"
)

// Problem is a request that cannot be served as asked: a board or period that
// does not exist, a parameter out of range, a form from another site. Pages
// show it as an error page with its title, message and links; the API sends
// its status, code, message and field as JSON.
type Problem struct {
	Status  int
	Code    string // for the API: "board_not_found", "bad_parameter", ...
	Title   string // for pages
	Message string
	Field   string // the parameter at fault, when there is one
	Links   []templates.Link
	Retry   time.Duration // when set, the answer asks the client to retry after it
}

func (p *Problem) Error() string { return fmt.Sprintf("%d %s: %s", p.Status, p.Title, p.Message) }

// HomeLink leads back to the list of boards.
var HomeLink = templates.Link{Label: "All boards", Href: "/"}

// ProblemOf is a domain error as a Problem in a surface's own words: the
// status, code and retry the table gives it (Classify), with a title, a
// message and links for people.
func ProblemOf(err error, title, message string, links ...templates.Link) *Problem {
	c, _ := Classify(err)
	return &Problem{Status: c.Status, Code: c.Code, Title: title, Message: message, Links: links, Retry: c.Retry}
}

// NotFound is a 404 with a title and a message.
func NotFound(title, message string, links ...templates.Link) *Problem {
	return &Problem{Status: http.StatusNotFound, Code: "not_found", Title: title, Message: message, Links: links}
}

// BadRequest is a 400 that says what was wrong.
func BadRequest(message string, links ...templates.Link) *Problem {
	return &Problem{Status: http.StatusBadRequest, Code: "bad_request", Title: "That request is not valid", Message: message, Links: links}
}

// Forbidden is a 403: the request was refused (another site, no token).
func Forbidden(title, message string, links ...templates.Link) *Problem {
	return &Problem{Status: http.StatusForbidden, Code: "forbidden", Title: title, Message: message, Links: links}
}
