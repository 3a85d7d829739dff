package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/servertest"
	"github.com/xunzhi-ai/aimeeting/internal/testenv"
)

// usernamesEndToEnd registers and logs in 张伟 through the real binary,
// and checks that look-alike names conflict and bad ones state the rule.
func usernamesEndToEnd(t *testing.T, env ...string) {
	s := servertest.Start(t, "", env...)
	l := MustRegisterLogin(t, s.URL, "张伟")
	r := me(t, s.URL, l.Token)
	wantStatus(t, r, 200, "0")
	var u struct{ Username string }
	r.Decode(t, &u)
	if u.Username != "张伟" {
		t.Fatalf("me = %s, want 张伟", r.Raw)
	}
	MustRegisterLogin(t, s.URL, "alice")
	for _, name := range []string{"\u0430lice", "ＡＬＩＣＥ"} { // Cyrillic а, full width
		r := servertest.Do(t, "POST", s.URL+api+"/users/register", "", map[string]string{"username": name, "password": "password1"})
		if r.Status != 409 || !strings.Contains(r.Message, "already taken") {
			t.Fatalf("register %q: %d %s, want 409 already taken", name, r.Status, r.Raw)
		}
	}
	r = servertest.Do(t, "GET", s.URL+api+"/users/has-username?username="+url.QueryEscape("ＡＬＩＣＥ"), "", nil)
	wantStatus(t, r, 200, "0")
	free := true
	r.Decode(t, &free)
	if free {
		t.Fatalf("has-username ＡＬＩＣＥ = %s, want it reported taken", r.Raw)
	}
	for _, name := range []string{"张", "张伟😀", "张 伟", strings.Repeat("伟", 33)} {
		r := servertest.Do(t, "POST", s.URL+api+"/users/register", "", map[string]string{"username": name, "password": "password1"})
		wantStatus(t, r, 400, "A000001")
		if !strings.Contains(r.Message, "2 to 32 characters: letters of any script") {
			t.Fatalf("register %q: message %q does not state the rule", name, r.Message)
		}
	}
	// NFD input logs in to the NFC account.
	MustRegisterLogin(t, s.URL, "josé")
	r = servertest.Do(t, "POST", s.URL+api+"/users/login", "", map[string]string{"username": "jose\u0301", "password": "password-josé"})
	wantStatus(t, r, 200, "0")
}

func TestUnicodeUsernamesEmbedded(t *testing.T) {
	usernamesEndToEnd(t)
}

func TestUnicodeUsernamesMySQL(t *testing.T) {
	usernamesEndToEnd(t, "DATABASE_DRIVER=mysql", "DATABASE_DSN="+testenv.MySQL(t))
}
