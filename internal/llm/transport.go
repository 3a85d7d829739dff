package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
)

// maxErrorBody bounds how much of an error response is kept for the message.
const maxErrorBody = 64 << 10

// exchange records what happened on the wire during one call. langchaingo
// reports HTTP failures as plain strings (the OpenAI client keeps the status
// only in its message, the Ollama client drops it for streamed errors, and
// both flatten transport errors), so the transport records the facts that
// classification needs. One exchange travels in the request context.
type exchange struct {
	stage string // the request's Stage, sent as StageHeader; immutable

	mu     sync.Mutex // protects the fields below
	status int        // status of the last response, 0 if none
	body   []byte     // body of a non-2xx response, truncated to maxErrorBody
	err    error      // first transport or body read error, other than io.EOF
}

type exchangeKey struct{}

// StageHeader carries Request.Stage on every HTTP request to the model, an
// explicit marker that test doubles and proxies can route on without
// reading the prompts. Real APIs ignore it.
const StageHeader = "X-Aimeeting-Stage"

// withExchange returns a context carrying a new exchange for a call of stage.
func withExchange(ctx context.Context, stage string) (context.Context, *exchange) {
	ex := &exchange{stage: stage}
	return context.WithValue(ctx, exchangeKey{}, ex), ex
}

// snapshot returns the recorded facts.
func (ex *exchange) snapshot() (status int, body []byte, err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.status, ex.body, ex.err
}

func (ex *exchange) setResponse(status int, body []byte) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.status, ex.body = status, body
}

func (ex *exchange) setErr(err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.err == nil {
		ex.err = err
	}
}

// recordingTransport records each response's status, error body and
// transport errors into the exchange found in the request context, and
// sends the exchange's stage as StageHeader.
type recordingTransport struct {
	base http.RoundTripper
	// stripAuth drops the Authorization header langchaingo always sets, so
	// that keyless local servers see no bogus placeholder key.
	stripAuth bool
	// headers are set on every request (OpenAI-Organization, OpenAI-Project).
	headers http.Header
}

// RoundTrip implements http.RoundTripper.
func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if t.stripAuth || len(t.headers) > 0 || (ex != nil && ex.stage != "") {
		req = req.Clone(req.Context()) // a RoundTripper must not modify its request
		if t.stripAuth {
			req.Header.Del("Authorization")
		}
		for k, v := range t.headers {
			req.Header[k] = v
		}
		if ex != nil && ex.stage != "" {
			req.Header.Set(StageHeader, ex.stage)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if ex == nil {
		return resp, err
	}
	if err != nil {
		ex.setErr(err)
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		ex.setResponse(resp.StatusCode, nil)
		resp.Body = &recordingBody{ReadCloser: resp.Body, ex: ex}
		return resp, nil
	}
	// Keep the error body for the message and hand the client a copy.
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if rerr != nil {
		ex.setErr(rerr)
	}
	ex.setResponse(resp.StatusCode, body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// recordingBody records a read error that ends a response early, which the
// Ollama client would otherwise take for a normal end of stream.
type recordingBody struct {
	io.ReadCloser
	ex *exchange
}

// Read implements io.Reader.
func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.ex.setErr(err)
	}
	return n, err
}

// modelTransport is the transport of every provider given no HTTP client:
// http.DefaultTransport keeping idle connections for as many calls as run
// at once. The default keeps 2 per host, so at a higher concurrency most
// calls to a model dialled (and over HTTPS shook hands) anew, and their
// connections were closed after one call.
var modelTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 256
	return t
}()

// newHTTPClient returns a copy of base (or a default client) whose transport
// records exchanges and sets headers on every request.
func newHTTPClient(base *http.Client, stripAuth bool, headers http.Header) *http.Client {
	var c http.Client
	if base != nil {
		c = *base
	}
	rt := c.Transport
	if rt == nil {
		rt = modelTransport
	}
	c.Transport = &recordingTransport{base: rt, stripAuth: stripAuth, headers: headers}
	return &c
}
