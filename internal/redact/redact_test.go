package redact

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://user:PASS@host/v1?key=SECRET", "http://user:******@host/v1?key=******"},
		{"http://user@host/v1", "http://user@host/v1"},
		{"https://h/v1?model=x&api_key=a%2Fb&x=1", "https://h/v1?model=x&api_key=******&x=1"},
		{"https://h/?APIKEY=1&Token=2&secret=3&signature=4&access_token=5&apikey=", "https://h/?APIKEY=******&Token=******&secret=******&signature=******&access_token=******&apikey="},
		{"wss://iat-api.xfyun.cn/v2/iat?authorization=YWJj&date=Mon&host=x", "wss://iat-api.xfyun.cn/v2/iat?authorization=******&date=Mon&host=x"},
		{"http://u:p%40ss@h:8080/x?keyword=go", "http://u:******@h:8080/x?keyword=go"},
		{"not a url", "not a url"},
		{"http://bad host:x@%zz?key=1", Mask},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := URL(tt.in); got != tt.want {
				t.Fatalf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	u := "http://user:PASS1234@host/v1?key=SECRET&token=a%2Bb%2Bc"
	msg := `Post "http://user:PASS1234@host/v1/chat/completions?key=SECRET&token=a%2Bb%2Bc": dial tcp: refused (a+b+c)`
	got := Text(msg, u)
	for _, secret := range []string{"PASS1234", "SECRET", "a%2Bb%2Bc", "a+b+c"} {
		if strings.Contains(got, secret) {
			t.Errorf("Text left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, "dial tcp: refused") {
		t.Errorf("Text mangled the message: %q", got)
	}
}

func TestRestore(t *testing.T) {
	stored := "http://user:PASS@host/v1?key=SECRET&model=m&key=SECOND"
	tests := []struct {
		name, sent, want string
		err              error
	}{
		{"masked as shown", URL(stored), stored, nil},
		{"no mask: replaced", "https://other/v1?key=NEW", "https://other/v1?key=NEW", nil},
		{"path edited, secrets kept", "http://user:******@host/v2?key=******&model=n&key=******", "http://user:PASS@host/v2?key=SECRET&model=n&key=SECOND", nil},
		{"one secret retyped", "http://user:******@host/v1?key=NEW&key=******", "http://user:PASS@host/v1?key=NEW&key=SECOND", nil},
		{"other user keeps no password", "http://admin:******@host/v1", "", ErrMaskedSecret},
		{"new masked parameter", "http://host/v1?token=******", "", ErrMaskedSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Restore(tt.sent, stored)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Fatalf("Restore(%q) = %q, %v; want %q, %v", tt.sent, got, err, tt.want, tt.err)
			}
		})
	}
	t.Run("escaped password", func(t *testing.T) {
		stored := "http://u:p%40ss@h/"
		got, err := Restore(URL(stored), stored)
		if err != nil || got != stored {
			t.Fatalf("Restore = %q, %v; want %q", got, err, stored)
		}
		got, err = Restore("http://u:******@h/x", stored)
		if err != nil || got != "http://u:p%40ss@h/x" {
			t.Fatalf("Restore edited = %q, %v", got, err)
		}
	})
}

func TestError(t *testing.T) {
	_, err := http.Get("http://u:planted-pass@127.0.0.1:1/x?key=planted-key")
	if err == nil {
		t.Fatal("GET to port 1 succeeded")
	}
	msg := Error(err).Error()
	if strings.Contains(msg, "planted-pass") || strings.Contains(msg, "planted-key") || !strings.Contains(msg, "key=******") {
		t.Fatalf("Error left a secret or masked nothing: %s", msg)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("chain lost its *url.Error: %T", err)
	}
}

func TestFreeText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"no secrets here: score 88.", "no secrets here: score 88."},
		{"call https://u:hunter22@api.example.com/v1?key=abcd1234&x=1 now", "call https://u:******@api.example.com/v1?key=******&x=1 now"},
		{"Authorization: Bearer abcdefghijkl0123", "Authorization: Bearer ******"},
		{"header bearer abcdefghijkl0123.", "header bearer ******."},
		{`{"apiKey": "sk-proj-abc", "score": 3}`, `{"apiKey": "******", "score": 3}`},
		{"api_key=plainvalue&next=1", "api_key=******&next=1"},
		{"password: hunter22, user: bob", "password: ******, user: bob"},
		{"my key is sk-abcdefghijklmnopqrstuvwx ok", "my key is ****** ok"},
		{"google AIzaSyA1234567890abcdefghijklmnopqrstu end", "google ****** end"},
	}
	for _, tt := range tests {
		if got := FreeText(tt.in); got != tt.want {
			t.Errorf("FreeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// freeTextSlow is FreeText without the literal checks: every pattern is
// tried. Tests compare the two.
func freeTextSlow(s string) string {
	s = urlInText.ReplaceAllStringFunc(s, URL)
	s = bearer.ReplaceAllString(s, "$1 "+Mask)
	s = keyed.ReplaceAllStringFunc(s, maskKeyed)
	return apiKey.ReplaceAllString(s, Mask)
}

// freeTextCorpus mixes the credential shapes with look-alikes, case and
// Unicode folds (ſ, K), for the comparison of FreeText with its slow form.
var freeTextCorpus = []string{
	"", "plain text", `{"score": 87, "evidence": ["used an index"], "keywords": ["btree"]}`,
	"Authorization: Bearer abcdefghijkl0123", "BASIC dXNlcjpwYXNzd29yZA==", "bearer short",
	"api-key: v", "APIKEY=v", "api key = not matched?", "Secret='quoted value'", "ſecret=hidden",
	"ſk-notakey", "api_Key=x", "passwd=x", "PASSWORD : \"a b\"", "access_token=abc&x=1",
	"see https://user:pw@host/p?token=abc#f", "ftp://h/x", "ghp_abcdefghijklmnopqrstuv", "gh_ghs_abcdefghijklmnopqrstuvw",
	"xoxb-1234567890-abc", "github_pat_abcdefghijklmnopqrstuvwxyz", "sk-ant-abcdefghijklmnopqrstu",
	"AIzaSyA1234567890abcdefghijklmnopqrstu", "token", "key: value", "authorization=basic", "令牌 token：值",
}

func TestFreeTextMatchesSlowForm(t *testing.T) {
	for _, a := range freeTextCorpus {
		for _, b := range freeTextCorpus {
			in := a + " " + b
			if got, want := FreeText(in), freeTextSlow(in); got != want {
				t.Errorf("FreeText(%q) = %q, the patterns alone give %q", in, got, want)
			}
		}
	}
}

func FuzzFreeTextMatchesSlowForm(f *testing.F) {
	for _, s := range freeTextCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := FreeText(s), freeTextSlow(s); got != want {
			t.Errorf("FreeText(%q) = %q, the patterns alone give %q", s, got, want)
		}
	})
}

func BenchmarkFreeText(b *testing.B) {
	s := strings.Repeat(`{"dimensions": [{"name": "depth", "evidence": "explained the B-tree index and its cost"}], "score": 82} `, 8)
	b.Run("checked", func(b *testing.B) {
		for b.Loop() {
			FreeText(s)
		}
	})
	b.Run("patterns", func(b *testing.B) {
		for b.Loop() {
			freeTextSlow(s)
		}
	})
}
