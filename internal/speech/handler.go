package speech

import (
	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/httpx"
)

// Handler serves the speech routes.
type Handler struct {
	sockets        *Server
	files          *Transcriber
	maxUploadBytes int64
}

// NewHandler returns the handler; uploads above maxUploadBytes are 413.
func NewHandler(sockets *Server, files *Transcriber, maxUploadBytes int64) *Handler {
	return &Handler{sockets: sockets, files: files, maxUploadBytes: maxUploadBytes}
}

// Register mounts the routes on api (the /api/xunzhi/v1 group). The socket
// authenticates itself (its token may come in the query or subprotocol,
// where auth does not look), the upload and the capabilities use auth and
// the default rate-limit bucket (limit gives a bucket's middleware).
func (h *Handler) Register(api *gin.RouterGroup, auth gin.HandlerFunc, limit func(bucket string) gin.HandlerFunc) {
	api.GET("/xunfei/audio-to-text/:userId", h.socket)
	api.GET("/speech/capabilities", auth, limit("default"), h.capabilities)
	api.POST("/speech/transcriptions", auth, limit("default"), httpx.UploadDeadline(h.maxUploadBytes), h.transcribe)
}

func (h *Handler) socket(c *gin.Context) {
	if !websocket.IsWebSocketUpgrade(c.Request) {
		// A plain GET gets an envelope like every REST call: 401 without
		// a valid token, else 400.
		if _, _, err := h.sockets.Authenticate(c.Request); err != nil {
			httpx.Error(c, err)
			return
		}
		httpx.Error(c, apperr.Invalid("this endpoint is a WebSocket: connect with Upgrade: websocket"))
		return
	}
	h.sockets.ServeSocket(c.Writer, c.Request, c.Param("userId"))
}

// capabilities answers which provider recognises the sockets' speech and
// in which languages, so the page can warn before recording.
func (h *Handler) capabilities(c *gin.Context) {
	rec := h.sockets.rec
	httpx.Respond(c, Capabilities{Provider: rec.Name(), Languages: rec.Languages()}, nil)
}

func (h *Handler) transcribe(c *gin.Context) {
	up, err := httpx.FormFile(c, "file", h.maxUploadBytes)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	t, err := h.files.Transcribe(c.Request.Context(), up.Data, up.Filename)
	httpx.Respond(c, t, err)
}
