// Package users is accounts and authentication: registration, login with
// opaque server-side tokens (absolute and idle expiry, revocable), profiles,
// and the admin role. The first user of an empty database becomes admin.
package users

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
)

// User is an account. PasswordHash is bcrypt and never leaves the service.
type User struct {
	ID       string
	Username string
	// UsernameKey is UsernameKey(Username), unique among users; empty for
	// an account from before usernames had keys whose key another older
	// account already held.
	UsernameKey  string
	PasswordHash string
	RealName     string
	Phone        string
	Mail         string
	IsAdmin      bool
	// Language is the interface language the user chose ("zh-CN", "en"),
	// or "" when they have not chosen one.
	Language string
	// MustChangePassword is set on accounts imported with the original's
	// plain-text password; changing the password clears it.
	MustChangePassword bool
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Languages are the interface languages a user may choose.
var Languages = []string{"zh-CN", "en"}

// validateLanguage accepts "" (not chosen) and the Languages.
func validateLanguage(lang string) error {
	for _, l := range append([]string{""}, Languages...) {
		if lang == l {
			return nil
		}
	}
	return apperr.Invalid("language must be \"zh-CN\" or \"en\"")
}

// Token is a login session. Only the SHA-256 of the client's token is kept.
type Token struct {
	Hash       string
	UserID     string
	CreatedAt  time.Time
	LastUsedAt time.Time
	ExpiresAt  time.Time
	RevokedAt  *time.Time
}

// Usable reports whether the token may authenticate at now, given the idle limit.
func (t Token) Usable(now time.Time, idle time.Duration) bool {
	return t.RevokedAt == nil && now.Before(t.ExpiresAt) && now.Sub(t.LastUsedAt) < idle
}

// RegisterInput is what a new account needs.
type RegisterInput struct {
	Username string `json:"username"`
	Password string `json:"password"`
	RealName string `json:"realName"`
	Phone    string `json:"phone"`
	Mail     string `json:"mail"`
}

// UpdateInput changes the caller's own profile; nil fields stay as they are.
type UpdateInput struct {
	Password *string `json:"password"`
	RealName *string `json:"realName"`
	Phone    *string `json:"phone"`
	Mail     *string `json:"mail"`
	// Language is "zh-CN" or "en" (or "" to forget the choice).
	Language *string `json:"language"`
}

// LoginResult is returned by a successful login.
type LoginResult struct {
	Token    string `json:"token"`
	Username string `json:"username"`
	IsAdmin  bool   `json:"isAdmin"`
	Language string `json:"language"`
	// MustChangePassword tells the client to have the user choose a new
	// password (PUT /users) before going on.
	MustChangePassword bool `json:"mustChangePassword"`
}

// ImportInput is an account brought over from the original AI-Meeting.
type ImportInput struct {
	Username string
	Password string // the original's plain text; stored bcrypt-hashed
	RealName string
	Phone    string
	Mail     string
	Admin    bool
}

// MaskPhone hides the middle of a phone number ("138****5678"), keeping
// at most the first three and the last four digits.
func MaskPhone(phone string) string {
	r := []rune(phone)
	switch n := len(r); {
	case n == 0:
		return ""
	case n >= 8:
		return string(r[:3]) + strings.Repeat("*", n-7) + string(r[n-4:])
	case n > 2:
		return strings.Repeat("*", n-2) + string(r[n-2:])
	default:
		return strings.Repeat("*", n)
	}
}

var (
	phonePattern = regexp.MustCompile(`^\+?[0-9 ()-]{3,32}$`)
	mailPattern  = regexp.MustCompile(`^[^@\s]{1,64}@[^@\s]{1,255}$`)
)

// validatePassword enforces length; bcrypt reads at most 72 bytes.
func validatePassword(pw string) error {
	switch {
	case pw == "":
		return apperr.Invalid("password is required")
	case utf8.RuneCountInString(pw) < 8:
		return apperr.Invalid("password must be at least 8 characters")
	case len(pw) > 72:
		return apperr.Invalid("password must be at most 72 bytes")
	}
	return nil
}

func validateProfile(realName, phone, mail string) error {
	if utf8.RuneCountInString(realName) > 64 {
		return apperr.Invalid("realName must be at most 64 characters")
	}
	if phone != "" && !phonePattern.MatchString(phone) {
		return apperr.Invalid("phone must be 3 to 32 digits, spaces, '+', '(', ')' or '-'")
	}
	if mail != "" && (len(mail) > 128 || !mailPattern.MatchString(mail)) {
		return apperr.Invalid("mail must be an e-mail address of at most 128 characters")
	}
	return nil
}

func (in *RegisterInput) normalize() {
	in.Username = NormalizeUsername(in.Username)
	in.RealName = strings.TrimSpace(in.RealName)
	in.Phone = strings.TrimSpace(in.Phone)
	in.Mail = strings.TrimSpace(in.Mail)
}

// Validate checks every field and says what to fix.
func (in RegisterInput) Validate() error {
	if err := ValidateUsername(in.Username); err != nil {
		return err
	}
	if err := validatePassword(in.Password); err != nil {
		return err
	}
	return validateProfile(in.RealName, in.Phone, in.Mail)
}
