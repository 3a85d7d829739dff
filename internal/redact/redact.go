// Package redact masks secrets that travel inside URLs: the password of
// user:password@ and the values of query parameters that carry keys,
// tokens or signatures. A provider URL is shown masked in every response,
// log line and printed configuration, the way an API key is, and a masked
// URL sent back on update is restored from the stored one.
package redact

import (
	"errors"
	"net/url"
	"strings"
)

// Mask replaces a secret.
const Mask = "******"

// secretParams are the query parameters (compared case-insensitively)
// whose values are secrets. "authorization" is what signed WebSocket URLs
// such as iFlytek's carry.
var secretParams = map[string]bool{
	"key": true, "api_key": true, "apikey": true, "api-key": true, "token": true, "secret": true,
	"signature": true, "sig": true, "access_token": true, "authorization": true,
}

// IsSecretParam reports whether the query parameter name holds a secret.
func IsSecretParam(name string) bool { return secretParams[strings.ToLower(name)] }

// placeholder stands for Mask while url.URL formats the userinfo, which
// would percent-encode the asterisks.
const placeholder = "REDACTEDPASSWORD0"

// URL returns raw with the password of its userinfo and the values of its
// secret query parameters replaced by Mask; the rest of the URL is kept
// byte for byte where possible. A string that is not a URL with a host is
// returned unchanged, except that one which cannot be parsed at all but
// looks like it holds credentials is masked entirely.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") || strings.Contains(raw, "?") {
			return Mask
		}
		return raw
	}
	changed := false
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != Mask {
			u.User = url.UserPassword(u.User.Username(), placeholder)
			changed = true
		}
	}
	if q, ok := maskQuery(u.RawQuery); ok {
		u.RawQuery = q
		changed = true
	}
	if !changed {
		return raw
	}
	return strings.Replace(u.String(), placeholder, Mask, 1)
}

// maskQuery masks the secret values of a raw query, keeping the order
// and encoding of everything else. ok is false when nothing changed.
func maskQuery(raw string) (string, bool) {
	if raw == "" {
		return raw, false
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, part := range parts {
		name, value, hasValue := strings.Cut(part, "=")
		if !hasValue || value == "" || value == Mask {
			continue
		}
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if IsSecretParam(name) {
			parts[i] = part[:len(part)-len(value)] + Mask
			changed = true
		}
	}
	return strings.Join(parts, "&"), changed
}

// Secrets returns the secret values inside raw (the password and the
// secret query values), both as written and decoded, for removing them
// from free text such as error messages. Values shorter than 4 bytes are
// left out: too short to search for without mangling messages.
func Secrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	add := func(vals ...string) {
		for _, v := range vals {
			if len(v) >= 4 && v != Mask {
				out = append(out, v)
			}
		}
	}
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			add(p, url.PathEscape(p), url.QueryEscape(p))
		}
	}
	for _, part := range strings.Split(u.RawQuery, "&") {
		name, value, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if !IsSecretParam(name) {
			continue
		}
		add(value)
		if v, err := url.QueryUnescape(value); err == nil {
			add(v, url.QueryEscape(v))
		}
	}
	return out
}

// Text replaces every secret of the given URLs (see Secrets) in s by Mask.
func Text(s string, urls ...string) string {
	for _, u := range urls {
		for _, secret := range Secrets(u) {
			s = strings.ReplaceAll(s, secret, Mask)
		}
	}
	return s
}

// ErrMaskedSecret is returned by Restore when sent keeps a masked secret
// that stored does not hold.
var ErrMaskedSecret = errors.New("the URL holds a masked secret (" + Mask + ") that is not stored: send the real value")

// Restore returns sent with each masked secret replaced by the same secret
// of stored: the password when the user name is the same, a query value
// when stored has the same parameter (the n-th occurrence for the n-th).
// So a client that edits a URL it was shown masked keeps the stored
// secrets it did not retype. A sent URL without Mask is returned as is.
func Restore(sent, stored string) (string, error) {
	if !strings.Contains(sent, Mask) {
		return sent, nil
	}
	if sent == URL(stored) {
		return stored, nil
	}
	su, err := url.Parse(sent)
	if err != nil {
		return "", ErrMaskedSecret
	}
	old, err := url.Parse(stored)
	if err != nil {
		old = &url.URL{}
	}
	password := ""
	if su.User != nil {
		if p, ok := su.User.Password(); ok && p == Mask {
			oldPass, has := "", false
			if old.User != nil && old.User.Username() == su.User.Username() {
				oldPass, has = old.User.Password()
			}
			if !has {
				return "", ErrMaskedSecret
			}
			password = oldPass
			su.User = url.UserPassword(su.User.Username(), placeholder)
		}
	}
	// Stored values of each secret parameter, in order.
	oldVals := map[string][]string{}
	for _, part := range strings.Split(old.RawQuery, "&") {
		name, value, ok := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if ok && IsSecretParam(name) {
			oldVals[strings.ToLower(name)] = append(oldVals[strings.ToLower(name)], value)
		}
	}
	seen := map[string]int{}
	parts := strings.Split(su.RawQuery, "&")
	for i, part := range parts {
		name, value, ok := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if !ok || !IsSecretParam(name) {
			continue
		}
		key := strings.ToLower(name)
		n := seen[key]
		seen[key]++
		if value != Mask {
			continue
		}
		if n >= len(oldVals[key]) {
			return "", ErrMaskedSecret
		}
		parts[i] = part[:len(part)-len(value)] + oldVals[key][n]
	}
	su.RawQuery = strings.Join(parts, "&")
	out := su.String()
	if password != "" {
		out = strings.Replace(out, placeholder, url.UserPassword("", password).String()[1:], 1)
	}
	if strings.Contains(out, Mask) {
		return "", ErrMaskedSecret
	}
	return out, nil
}

// Error masks, in place, the URL of the *url.Error in err's chain (the
// error of every http.Client call quotes the request URL; Go hides only
// the password) and returns err.
func Error(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = URL(ue.URL)
	}
	return err
}
