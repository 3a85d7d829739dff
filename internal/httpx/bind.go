package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// MaxJSONBody is the largest JSON request body accepted (api.md: 1 MiB).
const MaxJSONBody = 1 << 20

// MaxJSONDepth bounds the nesting of JSON request bodies.
const MaxJSONDepth = 32

// BindJSON decodes the JSON body into v. Errors say what to fix: an empty
// body, malformed JSON (with the offset), a field of the wrong type (with
// its name), a body over MaxJSONBody, or nesting deeper than MaxJSONDepth.
func BindJSON(c *gin.Context, v any) error {
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxJSONBody+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apperr.New(apperr.KindTooLarge, "request body is larger than %d bytes", mbe.Limit)
		}
		return apperr.Invalid("could not read the request body: %v", err)
	}
	if len(body) > MaxJSONBody {
		return apperr.New(apperr.KindTooLarge, "JSON body is larger than %d bytes", MaxJSONBody)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return apperr.Invalid("request body is empty: send a JSON object")
	}
	if depth := jsonDepth(body); depth > MaxJSONDepth {
		return apperr.Invalid("JSON body is nested %d levels deep; at most %d allowed", depth, MaxJSONDepth)
	}
	return DecodeJSON(body, v)
}

// DecodeJSON decodes body into v with the same error messages as BindJSON.
func DecodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return apperr.Invalid("request body is not valid JSON: %v (at byte %d)", syn, syn.Offset)
		case errors.As(err, &typ):
			field := typ.Field
			if field == "" {
				return apperr.Invalid("request body must be a JSON object, not %s", apperr.Word(typ.Value))
			}
			return apperr.Invalid("field %q must be %s, not %s", field,
				apperr.Word(jsonTypeName(typ.Type.Kind().String())), apperr.Word(typ.Value))
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return apperr.Invalid("request body is not valid JSON: it ends too early")
		default:
			return apperr.Invalid("request body is not valid JSON: %v", err)
		}
	}
	if dec.More() {
		return apperr.Invalid("request body must hold exactly one JSON value")
	}
	return nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "ptr":
		return "a value of another type"
	}
	return kind
}

// jsonDepth returns the maximum nesting of objects and arrays in body,
// ignoring brackets inside strings.
func jsonDepth(body []byte) int {
	depth, maxDepth, inString, escaped := 0, 0, false, false
	for _, b := range body {
		switch {
		case escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case b == '"':
			inString = !inString
		case inString:
		case b == '{' || b == '[':
			depth++
			maxDepth = max(maxDepth, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return maxDepth
}

// QueryInt parses an optional integer query parameter.
func QueryInt(c *gin.Context, name string, def int) (int, error) {
	s := strings.TrimSpace(c.Query(name))
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, apperr.Invalid("query parameter %q must be an integer, not %q", name, s)
	}
	return n, nil
}

// QueryBool parses an optional boolean query parameter; nil when absent.
func QueryBool(c *gin.Context, name string) (*bool, error) {
	s := strings.TrimSpace(c.Query(name))
	if s == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return nil, apperr.Invalid("query parameter %q must be true or false, not %q", name, s)
	}
	return &b, nil
}

// PageRequest parses `current` and `size` (or the original's names for
// them, `pageNum` and `pageSize`, used when the first are absent),
// rejecting non-numbers and clamping to the page bounds.
func PageRequest(c *gin.Context) (page.Request, error) {
	currentName, sizeName := "current", "size"
	if _, ok := c.GetQuery(currentName); !ok {
		if _, ok := c.GetQuery("pageNum"); ok {
			currentName = "pageNum"
		}
	}
	if _, ok := c.GetQuery(sizeName); !ok {
		if _, ok := c.GetQuery("pageSize"); ok {
			sizeName = "pageSize"
		}
	}
	current, err := QueryInt(c, currentName, 1)
	if err != nil {
		return page.Request{}, err
	}
	size, err := QueryInt(c, sizeName, page.DefaultSize)
	if err != nil {
		return page.Request{}, err
	}
	if current < 1 {
		return page.Request{}, apperr.Invalid("query parameter %q must be 1 or more", currentName)
	}
	if size < 1 || size > page.MaxSize {
		return page.Request{}, apperr.Invalid("query parameter %q must be between 1 and %d", sizeName, page.MaxSize)
	}
	p := page.Request{Current: current, Size: size}.Normalize()
	if err := p.Validate(); err != nil {
		return page.Request{}, apperr.Invalid("query parameter \"current\" is too large (%v)", err)
	}
	return p, nil
}

// Upload is a file read from a multipart request.
type Upload struct {
	Filename string
	Data     []byte
}

// FormFile reads the multipart file field, at most limit bytes. A missing
// field is a 400 naming it; a larger file is a 413 naming the limit.
func FormFile(c *gin.Context, field string, limit int64) (Upload, error) {
	// Leave room for the multipart framing and the other fields.
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit+64<<10)
	if err := c.Request.ParseMultipartForm(8 << 20); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return Upload{}, apperr.New(apperr.KindTooLarge, "upload %q is larger than %d bytes", field, limit)
		}
		return Upload{}, apperr.Invalid("request must be multipart/form-data with a file field %q: %v", field, err)
	}
	fh, err := c.FormFile(field)
	if err != nil {
		return Upload{}, apperr.Invalid("file field %q is missing", field)
	}
	if fh.Size > limit {
		return Upload{}, apperr.New(apperr.KindTooLarge, "upload %q is larger than %d bytes", field, limit)
	}
	data, err := readPart(fh, limit)
	if err != nil {
		return Upload{}, err
	}
	if len(data) == 0 {
		return Upload{}, apperr.Invalid("file field %q is empty", field)
	}
	return Upload{Filename: fh.Filename, Data: data}, nil
}

func readPart(fh *multipart.FileHeader, limit int64) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, apperr.Internal(fmt.Errorf("open upload: %w", err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, apperr.Internal(fmt.Errorf("read upload: %w", err))
	}
	if int64(len(data)) > limit {
		return nil, apperr.New(apperr.KindTooLarge, "upload is larger than %d bytes", limit)
	}
	return data, nil
}

// Param returns a path parameter, rejecting empty or oversized values.
func Param(c *gin.Context, name string) (string, error) {
	v := c.Param(name)
	if v == "" || len(v) > 64 {
		return "", apperr.Invalid("path parameter %q must be 1 to 64 characters", name)
	}
	return v, nil
}
