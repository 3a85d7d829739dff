// Package web holds the browser frontend: plain HTML, CSS and ES modules,
// embedded into the server binary and served at / (internal/app/wire_web.go).
// There is no build step: edit the files under static/ and rebuild the server.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var files embed.FS

// FS returns the static files, rooted so that "index.html" is the page.
func FS() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	return sub
}
