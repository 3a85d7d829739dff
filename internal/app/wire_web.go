package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/web"
)

// webAsset is one embedded file, read once at start-up.
type webAsset struct {
	data  []byte
	ctype string
	etag  string
}

// loadWebAssets reads every embedded file and computes its ETag.
func loadWebAssets(fsys fs.FS) (map[string]webAsset, error) {
	assets := map[string]webAsset{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		ctype := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) { // do not depend on the host's mime.types
		case ".js", ".mjs":
			ctype = "text/javascript; charset=utf-8"
		case ".css":
			ctype = "text/css; charset=utf-8"
		case ".html":
			ctype = "text/html; charset=utf-8"
		case ".svg":
			ctype = "image/svg+xml"
		case ".json", ".webmanifest":
			ctype = "application/json"
		}
		if ctype == "" {
			ctype = http.DetectContentType(data)
		}
		sum := sha256.Sum256(data)
		assets[p] = webAsset{data: data, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := assets["index.html"]; !ok {
		return nil, fmt.Errorf("web: index.html is not embedded")
	}
	return assets, nil
}

// webSecurityHeaders sets the headers of every page and asset: scripts and
// everything else only from this origin (no inline script), no framing, no
// MIME sniffing, no referrer to other origins.
func webSecurityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	// connect-src names the page's own ws(s):// origin explicitly: 'self'
	// covers it in current browsers, older ones need it spelled out.
	host := c.Request.Host
	ws := ""
	if host != "" && !strings.ContainsAny(host, " ;,'\"") {
		ws = " ws://" + host + " wss://" + host
	}
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "+
		"img-src 'self' blob: data:; media-src 'self' blob:; connect-src 'self'"+ws+"; "+
		"worker-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(self), microphone=(self), geolocation=()")
}

// webHandler serves the browser frontend (web/, embedded) at /: index.html
// for / (the app routes with #/... fragments, so no other path needs it),
// the files under /assets/. The files have no content hash in their names,
// so they are revalidated on each use (ETag, 304) rather than cached blind.
// API routes and the JSON 404 of NoRoute are left as they are.
type webHandler struct {
	assets  map[string]webAsset
	started time.Time
}

// newWebHandler reads the embedded files.
func newWebHandler() (*webHandler, error) {
	assets, err := loadWebAssets(web.FS())
	if err != nil {
		return nil, err
	}
	return &webHandler{assets: assets, started: time.Now().UTC()}, nil
}

// register mounts the page and its assets on r.
func (h *webHandler) register(r *gin.Engine) {
	page := func(c *gin.Context) { h.serve(c, "index.html", "no-cache") }
	r.GET("/", page)
	r.HEAD("/", page)
	r.GET("/index.html", page)
	asset := func(c *gin.Context) {
		name := strings.TrimPrefix(path.Clean("/"+c.Param("filepath")), "/")
		if name == "index.html" || name == "" {
			webNotFound(c)
			return
		}
		h.serve(c, name, "public, max-age=0, must-revalidate")
	}
	r.GET("/assets/*filepath", asset)
	r.HEAD("/assets/*filepath", asset)
}

// serve answers with the embedded file name.
func (h *webHandler) serve(c *gin.Context, name string, cacheControl string) {
	as, ok := h.assets[name]
	if !ok {
		webNotFound(c)
		return
	}
	webSecurityHeaders(c)
	hd := c.Writer.Header()
	hd.Set("Cache-Control", cacheControl)
	hd.Set("ETag", as.etag)
	hd.Set("Content-Type", as.ctype)
	// ServeContent answers If-None-Match (304), Range and HEAD.
	http.ServeContent(c.Writer, c.Request, name, h.started, bytes.NewReader(as.data))
}

// webNotFound is a plain 404 for a missing asset.
func webNotFound(c *gin.Context) {
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Cache-Control", "no-store")
	c.String(http.StatusNotFound, "not found")
}
