package doctext_test

import (
	"context"
	"fmt"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/doctext"
)

func ExampleExtract() {
	resume := doctext.Options{
		Allowed:  []doctext.Kind{doctext.KindPDF, doctext.KindTXT, doctext.KindMD},
		MaxChars: 20_000,
	}

	doc, err := doctext.Extract(context.Background(), []byte("\xEF\xBB\xBFJane Doe\r\nGo engineer\r\n"), "cv.txt", resume)
	fmt.Printf("%s %s %q %v\n", doc.Kind, doc.MIME, doc.Text, err)

	_, err = doctext.Extract(context.Background(), []byte("\x89PNG\r\n\x1a\n\x00\x00"), "photo.pdf", resume)
	fmt.Println(apperr.KindOf(err) == apperr.KindUnprocessable, apperr.As(err).Message)
	// Output:
	// txt text/plain; charset=utf-8 "Jane Doe\nGo engineer\n" <nil>
	// true "photo.pdf": this is not a PDF (its content is an image): export your resume again as a PDF, or upload a PDF, TXT or MD file
}

func ExampleSniff() {
	kind, mime, err := doctext.Sniff([]byte("# Jane Doe"), "README.md")
	fmt.Println(kind, mime, err)
	// Output: md text/markdown; charset=utf-8 <nil>
}
