package templates

import (
	"fmt"
	"html"
	"strings"

	"github.com/a-h/templ"
	qrcode "github.com/skip2/go-qrcode"
)

// qrSVG draws text as a QR code in SVG markup: one path of dark modules
// with a quiet zone of four, black on white whatever the theme (a phone's
// camera needs the contrast), scaled by the page. label is its accessible
// name. A text too long for a QR code draws nothing.
func qrSVG(text, label string) templ.Component {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return templ.Raw("")
	}
	q.DisableBorder = true
	bits := q.Bitmap()
	n := len(bits) + 8
	var d strings.Builder
	for y, row := range bits {
		for x, on := range row {
			if on {
				fmt.Fprintf(&d, "M%d %dh1v1h-1z", x+4, y+4)
			}
		}
	}
	return templ.Raw(fmt.Sprintf(`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s" shape-rendering="crispEdges" data-testid="qr"><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		n, n, html.EscapeString(label), n, n, d.String()))
}
