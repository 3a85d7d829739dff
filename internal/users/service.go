package users

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/ids"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Store persists users and tokens.
type Store interface {
	CreateUser(ctx context.Context, u User) (User, error)
	UserByID(ctx context.Context, id string) (User, error)
	UserByUsername(ctx context.Context, name string) (User, error)
	UserByUsernameKey(ctx context.Context, key string) (User, error)
	UpdateUser(ctx context.Context, u User) error
	ImportUser(ctx context.Context, u User) error
	AdminClaimed(ctx context.Context) (bool, error)
	PageUsers(ctx context.Context, p page.Request, keyword string) (page.Result[User], error)
	CreateToken(ctx context.Context, t Token) error
	TokenByHash(ctx context.Context, hash string) (Token, error)
	TouchToken(ctx context.Context, hash string, at time.Time) error
	RevokeToken(ctx context.Context, hash string, at time.Time) error
	RevokeUserTokens(ctx context.Context, userID, keep string, at time.Time) ([]string, error)
	LiveTokenHashes(ctx context.Context, userID string, now time.Time) ([]string, error)
}

// TokenCache holds recently validated tokens so that most requests skip the
// token lookup in the database. Implementations must be safe for concurrent
// use; a cache error is never fatal (the database is the truth).
type TokenCache interface {
	Get(ctx context.Context, hash string) ([]byte, bool, error)
	Set(ctx context.Context, hash string, value []byte, ttl time.Duration) error
	Delete(ctx context.Context, hashes ...string) error
}

// Config tunes the service.
type Config struct {
	TokenTTL     time.Duration // absolute lifetime of a token
	TokenIdleTTL time.Duration // a token unused this long expires
	BcryptCost   int
	// CacheTTL bounds how long a cached token is trusted without the database.
	CacheTTL time.Duration
}

// Service implements the account use cases.
type Service struct {
	store Store
	cache TokenCache // nil when Redis is not configured
	// throttle slows down password guessing and mass registration; nil:
	// no throttling.
	throttle *Throttle
	cfg      Config
	now      func() time.Time
	// dummyHash is compared against when a username does not exist, so a
	// failed login takes as long whether or not the account exists.
	dummyHash []byte
}

// NewService returns a service. cache and throttle may be nil.
func NewService(store Store, cache TokenCache, throttle *Throttle, cfg Config) (*Service, error) {
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = bcrypt.DefaultCost
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = time.Minute
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("not-a-real-password"), cfg.BcryptCost)
	if err != nil {
		return nil, fmt.Errorf("users: bcrypt cost %d: %w", cfg.BcryptCost, err)
	}
	return &Service{store: store, cache: cache, throttle: throttle, cfg: cfg, now: func() time.Time { return time.Now().UTC() }, dummyHash: dummy}, nil
}

// Register creates an account for a client at addr (its IP address, for
// the throttle). The first account of an empty database is admin.
func (s *Service) Register(ctx context.Context, addr string, in RegisterInput) (User, error) {
	in.normalize()
	if err := in.Validate(); err != nil {
		return User{}, err
	}
	if s.throttle != nil {
		if err := s.throttle.BeginRegistration(ctx, addr); err != nil {
			return User{}, err
		}
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), s.cfg.BcryptCost)
	if err != nil {
		return User{}, apperr.Internal(err)
	}
	now := s.now()
	return s.store.CreateUser(ctx, User{
		ID: ids.New(), Username: in.Username, UsernameKey: UsernameKey(in.Username), PasswordHash: string(hash),
		RealName: in.RealName, Phone: in.Phone, Mail: in.Mail, CreatedAt: now, UpdatedAt: now,
	})
}

var errBadLogin = apperr.Unauthenticated("username or password is wrong")

// Login checks the password of a client at addr (its IP address, for the
// throttle) and issues a new token. While the account or the address is
// throttled it fails with a *ThrottledError before any password work; an
// unknown username is throttled, and costs a bcrypt compare, like a known one.
func (s *Service) Login(ctx context.Context, addr, username, password string) (LoginResult, error) {
	username = NormalizeUsername(username)
	if username == "" || password == "" {
		return LoginResult{}, apperr.Invalid("username and password are required")
	}
	// The account is throttled under its key, so that spelling the name
	// in another case or width does not reset its count.
	account := UsernameKey(username)
	if s.throttle != nil {
		if err := s.throttle.BeginLogin(ctx, account, addr); err != nil {
			return LoginResult{}, err
		}
	}
	u, err := s.userByName(ctx, username)
	if apperr.Is(err, apperr.KindNotFound) {
		_ = bcrypt.CompareHashAndPassword(s.dummyHash, []byte(password))
		s.loginFailed(ctx, addr)
		return LoginResult{}, errBadLogin
	}
	if err != nil {
		return LoginResult{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		s.loginFailed(ctx, addr)
		return LoginResult{}, errBadLogin
	}
	if s.throttle != nil {
		s.throttle.SucceedLogin(ctx, account)
	}
	token := ids.Token(32)
	now := s.now()
	if err := s.store.CreateToken(ctx, Token{Hash: HashToken(token), UserID: u.ID, CreatedAt: now,
		LastUsedAt: now, ExpiresAt: now.Add(s.cfg.TokenTTL)}); err != nil {
		return LoginResult{}, err
	}
	return LoginResult{Token: token, Username: u.Username, IsAdmin: u.IsAdmin, Language: u.Language,
		MustChangePassword: u.MustChangePassword}, nil
}

// userByName finds the user called name (normalised): by the exact name
// first, then by its key, so that "ALICE" or "ａｌｉｃｅ" finds alice.
func (s *Service) userByName(ctx context.Context, name string) (User, error) {
	u, err := s.store.UserByUsername(ctx, name)
	if !apperr.Is(err, apperr.KindNotFound) || len(name) > 4*usernameMaxRunes {
		return u, err
	}
	return s.store.UserByUsernameKey(ctx, UsernameKey(name))
}

func (s *Service) loginFailed(ctx context.Context, addr string) {
	if s.throttle != nil {
		s.throttle.FailLogin(ctx, addr)
	}
}

// HashToken is how a token is stored and looked up.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

var errBadToken = apperr.Unauthenticated("login required: the token is missing, expired or revoked")

// cachedToken is the cache's view of a valid token and of its user, so
// that authenticating costs one cache read (issue 21). The user is a copy
// without its password hash; every change of a user (profile, password,
// admin flag) deletes the entries of the user's tokens.
type cachedToken struct {
	UserID     string    `json:"u"`
	ExpiresAt  time.Time `json:"e"`
	LastUsedAt time.Time `json:"l"`
	User       *User     `json:"p,omitempty"`
}

// touchEvery bounds how often a token's last use is written.
const touchEvery = time.Minute

// Authenticate returns the user a token belongs to, or a 401 error. A user
// served from the token cache has no PasswordHash.
func (s *Service) Authenticate(ctx context.Context, token string) (User, error) {
	if token == "" || len(token) > 128 {
		return User{}, errBadToken
	}
	hash := HashToken(token)
	now := s.now()
	ct, ok := s.cachedToken(ctx, hash)
	if !ok {
		t, err := s.store.TokenByHash(ctx, hash)
		if apperr.Is(err, apperr.KindNotFound) {
			return User{}, errBadToken
		}
		if err != nil {
			return User{}, err
		}
		if !t.Usable(now, s.cfg.TokenIdleTTL) {
			return User{}, errBadToken
		}
		ct = cachedToken{UserID: t.UserID, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt}
	}
	if !now.Before(ct.ExpiresAt) || now.Sub(ct.LastUsedAt) >= s.cfg.TokenIdleTTL {
		return User{}, errBadToken
	}
	if now.Sub(ct.LastUsedAt) >= touchEvery {
		if err := s.store.TouchToken(ctx, hash, now); err != nil {
			return User{}, err
		}
		ct.LastUsedAt = now
		ok = false // refresh the cache below
	}
	if ok && ct.User != nil {
		return *ct.User, nil
	}
	u, err := s.store.UserByID(ctx, ct.UserID)
	if apperr.Is(err, apperr.KindNotFound) {
		return User{}, errBadToken
	}
	if err != nil {
		return User{}, err
	}
	cu := u
	cu.PasswordHash = ""
	ct.User = &cu
	s.cacheToken(ctx, hash, ct)
	return u, nil
}

func (s *Service) cachedToken(ctx context.Context, hash string) (cachedToken, bool) {
	if s.cache == nil {
		return cachedToken{}, false
	}
	if l, ok := s.cache.(*LocalTokenCache); ok {
		return l.lookup(ctx, hash)
	}
	b, ok, err := s.cache.Get(ctx, hash)
	if err != nil || !ok {
		return cachedToken{}, false
	}
	var ct cachedToken
	if json.Unmarshal(b, &ct) != nil {
		return cachedToken{}, false
	}
	return ct, true
}

func (s *Service) cacheToken(ctx context.Context, hash string, ct cachedToken) {
	if s.cache == nil {
		return
	}
	ttl := min(s.cfg.CacheTTL, time.Until(ct.ExpiresAt))
	if ttl <= 0 {
		return
	}
	b, _ := json.Marshal(ct)
	_ = s.cache.Set(ctx, hash, b, ttl) // best effort: the database stays the truth
}

// Logout revokes the token.
func (s *Service) Logout(ctx context.Context, token string) error {
	hash := HashToken(token)
	if err := s.store.RevokeToken(ctx, hash, s.now()); err != nil {
		return err
	}
	return s.uncache(ctx, hash)
}

// uncache removes revoked tokens from the cache. Unlike filling it, this
// must not be skipped: a revoked token left in the cache would still work.
func (s *Service) uncache(ctx context.Context, hashes ...string) error {
	if s.cache == nil || len(hashes) == 0 {
		return nil
	}
	if err := s.cache.Delete(ctx, hashes...); err != nil {
		return apperr.New(apperr.KindUnavailable, "could not revoke the session in the cache; try again").WithCause(err)
	}
	return nil
}

// UsernameFree reports whether name is well-formed and neither it nor a
// name with the same key (see UsernameKey) is taken.
func (s *Service) UsernameFree(ctx context.Context, name string) (bool, error) {
	name = NormalizeUsername(name)
	if err := ValidateUsername(name); err != nil {
		return false, err
	}
	_, err := s.userByName(ctx, name)
	if apperr.Is(err, apperr.KindNotFound) {
		return true, nil
	}
	return false, err
}

// User returns the user with id.
func (s *Service) User(ctx context.Context, id string) (User, error) {
	return s.store.UserByID(ctx, id)
}

// Update changes the caller's own profile. A new password revokes every
// other token of the user; the current one keeps working.
func (s *Service) Update(ctx context.Context, userID, currentToken string, in UpdateInput) (User, error) {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return User{}, err
	}
	if in.RealName != nil {
		u.RealName = strings.TrimSpace(*in.RealName)
	}
	if in.Phone != nil {
		u.Phone = strings.TrimSpace(*in.Phone)
	}
	if in.Mail != nil {
		u.Mail = strings.TrimSpace(*in.Mail)
	}
	if err := validateProfile(u.RealName, u.Phone, u.Mail); err != nil {
		return User{}, err
	}
	if in.Language != nil {
		lang := strings.TrimSpace(*in.Language)
		if err := validateLanguage(lang); err != nil {
			return User{}, err
		}
		u.Language = lang
	}
	if in.Password != nil {
		if err := validatePassword(*in.Password); err != nil {
			return User{}, err
		}
		hash, err := bcrypt.GenerateFromPassword([]byte(*in.Password), s.cfg.BcryptCost)
		if err != nil {
			return User{}, apperr.Internal(err)
		}
		u.PasswordHash = string(hash)
		u.MustChangePassword = false
	}
	u.UpdatedAt = s.now()
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return User{}, err
	}
	if in.Password != nil {
		revoked, err := s.store.RevokeUserTokens(ctx, u.ID, HashToken(currentToken), u.UpdatedAt)
		if err != nil {
			return User{}, err
		}
		if err := s.uncache(ctx, revoked...); err != nil {
			return User{}, err
		}
	}
	if err := s.uncacheUser(ctx, u.ID); err != nil {
		return User{}, err
	}
	return u, nil
}

// uncacheUser removes the cache entries of every live token of userID,
// which hold a copy of the user: after a change, the next request of each
// token reads the user from the database.
func (s *Service) uncacheUser(ctx context.Context, userID string) error {
	if s.cache == nil {
		return nil
	}
	hashes, err := s.store.LiveTokenHashes(ctx, userID, s.now())
	if err != nil {
		return err
	}
	return s.uncache(ctx, hashes...)
}

// Page lists users (for admins).
func (s *Service) Page(ctx context.Context, p page.Request, keyword string) (page.Result[User], error) {
	keyword = strings.TrimSpace(keyword)
	if len(keyword) > 64 {
		return page.Result[User]{}, apperr.Invalid("keyword must be at most 64 characters")
	}
	return s.store.PageUsers(ctx, p.Normalize(), keyword)
}

// GrantAdmin makes the named user an admin.
func (s *Service) GrantAdmin(ctx context.Context, username string) (User, error) {
	username = NormalizeUsername(username)
	if username == "" {
		return User{}, apperr.Invalid("username is required")
	}
	u, err := s.userByName(ctx, username)
	if err != nil {
		return User{}, err
	}
	if u.IsAdmin {
		return u, nil
	}
	u.IsAdmin = true
	u.UpdatedAt = s.now()
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return User{}, err
	}
	if err := s.uncacheUser(ctx, u.ID); err != nil {
		return User{}, err
	}
	return u, nil
}

// ByUsername returns the user called username as caller may see it: their
// own account, or any account for an admin. Anyone else's is a 404, as is
// an unknown name, so that the answer does not tell which names exist.
func (s *Service) ByUsername(ctx context.Context, callerID string, callerAdmin bool, username string) (User, error) {
	username = NormalizeUsername(username)
	if username == "" || len(username) > 4*usernameMaxRunes {
		return User{}, apperr.NotFound("user")
	}
	u, err := s.userByName(ctx, username)
	if err != nil {
		return User{}, err
	}
	if !callerAdmin && u.ID != callerID {
		return User{}, apperr.NotFound("user")
	}
	return u, nil
}

// ImportOutcome says what Import did with an account.
type ImportOutcome struct {
	User User
	// Dropped names the profile fields left empty because the original's
	// value is not valid here (phone, mail, realName).
	Dropped []string
}

// Import creates an account brought over from the original: its plain-text
// password bcrypt-hashed and flagged to be changed at the first login. A
// name taken here (or one that looks the same) is a conflict, so that
// importing twice creates nothing twice. Profile fields that are invalid
// here are dropped (see ImportOutcome) rather than losing the account.
func (s *Service) Import(ctx context.Context, in ImportInput) (ImportOutcome, error) {
	name := NormalizeUsername(in.Username)
	if err := ValidateUsername(name); err != nil {
		return ImportOutcome{}, err
	}
	if in.Password == "" {
		return ImportOutcome{}, apperr.Invalid("password is empty")
	}
	if len(in.Password) > 72 {
		return ImportOutcome{}, apperr.Invalid("password must be at most 72 bytes")
	}
	if _, err := s.userByName(ctx, name); err == nil {
		return ImportOutcome{}, ErrDuplicate
	} else if !apperr.Is(err, apperr.KindNotFound) {
		return ImportOutcome{}, err
	}
	var out ImportOutcome
	realName, phone, mail := strings.TrimSpace(in.RealName), strings.TrimSpace(in.Phone), strings.TrimSpace(in.Mail)
	if validateProfile(realName, "", "") != nil {
		realName, out.Dropped = "", append(out.Dropped, "realName")
	}
	if validateProfile("", phone, "") != nil {
		phone, out.Dropped = "", append(out.Dropped, "phone")
	}
	if validateProfile("", "", mail) != nil {
		mail, out.Dropped = "", append(out.Dropped, "mail")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(in.Password), s.cfg.BcryptCost)
	if err != nil {
		return ImportOutcome{}, apperr.Internal(err)
	}
	now := s.now()
	out.User = User{ID: ids.New(), Username: name, UsernameKey: UsernameKey(name), PasswordHash: string(hash),
		RealName: realName, Phone: phone, Mail: mail, IsAdmin: in.Admin, MustChangePassword: true,
		CreatedAt: now, UpdatedAt: now}
	if err := s.store.ImportUser(ctx, out.User); err != nil {
		return ImportOutcome{}, err
	}
	return out, nil
}

// AdminExists reports whether an admin has been made (by the first
// registration or an import).
func (s *Service) AdminExists(ctx context.Context) (bool, error) { return s.store.AdminClaimed(ctx) }
