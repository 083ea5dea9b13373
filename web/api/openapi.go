package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

//go:embed openapi.json
var openAPIDoc []byte

// openAPI serves the API's OpenAPI 3 document; a test checks it against the
// routes.
func (s *Handler) openAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/json", openAPIDoc)
}
