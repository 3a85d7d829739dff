package redact_test

import (
	"fmt"

	"github.com/xunzhi-ai/aimeeting/internal/redact"
)

func ExampleURL() {
	fmt.Println(redact.URL("http://user:PASS@host/v1?key=SECRET&model=m"))
	// Output: http://user:******@host/v1?key=******&model=m
}

func ExampleRestore() {
	stored := "http://user:PASS@host/v1?key=SECRET"
	// The admin edits the path of the URL as it was shown to them.
	got, err := redact.Restore("http://user:******@host/v2?key=******", stored)
	fmt.Println(got, err)
	// Output: http://user:PASS@host/v2?key=SECRET <nil>
}
