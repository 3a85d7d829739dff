package users

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// ErrDuplicate reports a username that is already taken, or that differs
// from a taken one only in case, width or look-alike letters.
var ErrDuplicate = apperr.Conflict("username is already taken (or one that looks the same, such as alice and ＡＬＩＣＥ or аlice with a Cyrillic а): choose another")

type userRow struct {
	ID           string `gorm:"primaryKey"`
	Username     string
	UsernameKey  *string // NULL: see User.UsernameKey
	PasswordHash string
	RealName     string
	Phone        string
	Mail         string
	IsAdmin      bool
	Language     string
	// MustChangePassword: see User.
	MustChangePassword bool
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

func (userRow) TableName() string { return "users" }

func (r userRow) toUser() User {
	u := User{ID: r.ID, Username: r.Username, PasswordHash: r.PasswordHash, RealName: r.RealName,
		Phone: r.Phone, Mail: r.Mail, IsAdmin: r.IsAdmin, Language: r.Language, MustChangePassword: r.MustChangePassword,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.UsernameKey != nil {
		u.UsernameKey = *r.UsernameKey
	}
	return u
}

func newUserRow(u User) userRow {
	r := userRow{ID: u.ID, Username: u.Username, PasswordHash: u.PasswordHash, RealName: u.RealName,
		Phone: u.Phone, Mail: u.Mail, IsAdmin: u.IsAdmin, Language: u.Language, MustChangePassword: u.MustChangePassword,
		CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt}
	if u.UsernameKey != "" {
		r.UsernameKey = &u.UsernameKey
	}
	return r
}

type tokenRow struct {
	TokenHash  string `gorm:"primaryKey"`
	UserID     string
	CreatedAt  time.Time
	LastUsedAt time.Time
	ExpiresAt  time.Time
	RevokedAt  *time.Time
}

func (tokenRow) TableName() string { return "auth_tokens" }

type metaRow struct {
	K         string `gorm:"primaryKey"`
	V         string
	CreatedAt time.Time
}

func (metaRow) TableName() string { return "app_meta" }

// GormStore keeps users and tokens in the SQL database.
type GormStore struct{ db *gorm.DB }

// NewGormStore returns a store on gdb.
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

var _ Store = (*GormStore)(nil)

// CreateUser inserts u. The first user ever created (the one that claims the
// 'first-admin' marker) is stored as admin.
func (s *GormStore) CreateUser(ctx context.Context, u User) (User, error) {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).
			Create(&metaRow{K: "first-admin", V: u.ID, CreatedAt: u.CreatedAt})
		if res.Error != nil {
			return res.Error
		}
		u.IsAdmin = res.RowsAffected == 1
		row := newUserRow(u)
		return tx.Create(&row).Error
	})
	if db.IsDuplicate(err) {
		return User{}, ErrDuplicate
	}
	if err != nil {
		return User{}, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

func (s *GormStore) userWhere(ctx context.Context, query string, arg any) (User, error) {
	var row userRow
	err := s.db.WithContext(ctx).Where(query, arg).Take(&row).Error
	if db.IsNotFound(err) {
		return User{}, apperr.NotFound("user")
	}
	if err != nil {
		return User{}, fmt.Errorf("load user: %w", err)
	}
	return row.toUser(), nil
}

// UserByID loads a user.
func (s *GormStore) UserByID(ctx context.Context, id string) (User, error) {
	return s.userWhere(ctx, "id = ?", id)
}

// UserByUsername loads a user by name.
func (s *GormStore) UserByUsername(ctx context.Context, name string) (User, error) {
	return s.userWhere(ctx, "username = ?", name)
}

// UserByUsernameKey loads the user whose UsernameKey is key. The match is
// checked byte for byte, whatever the database's collation.
func (s *GormStore) UserByUsernameKey(ctx context.Context, key string) (User, error) {
	u, err := s.userWhere(ctx, "username_key = ?", key)
	if err == nil && u.UsernameKey != key {
		return User{}, apperr.NotFound("user")
	}
	return u, err
}

// ImportUser inserts u as it is: unlike CreateUser it does not make the
// first user admin. An imported admin claims the 'first-admin' marker (if
// still free), so that registering afterwards no longer makes anyone admin.
func (s *GormStore) ImportUser(ctx context.Context, u User) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if u.IsAdmin {
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).
				Create(&metaRow{K: "first-admin", V: u.ID, CreatedAt: u.CreatedAt}).Error; err != nil {
				return err
			}
		}
		row := newUserRow(u)
		return tx.Create(&row).Error
	})
	if db.IsDuplicate(err) {
		return ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("import user: %w", err)
	}
	return nil
}

// AdminClaimed reports whether the first admin exists (the 'first-admin'
// marker is taken).
func (s *GormStore) AdminClaimed(ctx context.Context) (bool, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&metaRow{}).Where("k = ?", "first-admin").Count(&n).Error; err != nil {
		return false, fmt.Errorf("read first-admin marker: %w", err)
	}
	return n > 0, nil
}

// UpdateUser saves the profile fields and admin flag of u.
func (s *GormStore) UpdateUser(ctx context.Context, u User) error {
	err := s.db.WithContext(ctx).Model(&userRow{}).Where("id = ?", u.ID).Updates(map[string]any{
		"password_hash": u.PasswordHash, "real_name": u.RealName, "phone": u.Phone,
		"mail": u.Mail, "is_admin": u.IsAdmin, "language": u.Language, "must_change_password": u.MustChangePassword,
		"updated_at": u.UpdatedAt,
	}).Error
	if err != nil {
		return fmt.Errorf("update user: %w", err)
	}
	return nil
}

// PageUsers lists users whose name contains keyword, newest first.
func (s *GormStore) PageUsers(ctx context.Context, p page.Request, keyword string) (page.Result[User], error) {
	q := s.db.WithContext(ctx).Model(&userRow{})
	if keyword != "" {
		q = q.Where("(username LIKE ?"+db.LikeEscape+" OR real_name LIKE ?"+db.LikeEscape+")",
			db.LikePattern(keyword), db.LikePattern(keyword))
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[User]{}, fmt.Errorf("count users: %w", err)
	}
	var rows []userRow
	if err := q.Order("created_at DESC, id DESC").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[User]{}, fmt.Errorf("list users: %w", err)
	}
	out := make([]User, len(rows))
	for i, r := range rows {
		out[i] = r.toUser()
	}
	return page.NewResult(p, out, total), nil
}

// CreateToken stores a new token.
func (s *GormStore) CreateToken(ctx context.Context, t Token) error {
	row := tokenRow{TokenHash: t.Hash, UserID: t.UserID, CreatedAt: t.CreatedAt,
		LastUsedAt: t.LastUsedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt}
	if err := s.db.WithContext(ctx).Create(&row).Error; err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	return nil
}

// TokenByHash loads a token.
func (s *GormStore) TokenByHash(ctx context.Context, hash string) (Token, error) {
	var row tokenRow
	err := s.db.WithContext(ctx).Where("token_hash = ?", hash).Take(&row).Error
	if db.IsNotFound(err) {
		return Token{}, apperr.NotFound("token")
	}
	if err != nil {
		return Token{}, fmt.Errorf("load token: %w", err)
	}
	return Token{Hash: row.TokenHash, UserID: row.UserID, CreatedAt: row.CreatedAt,
		LastUsedAt: row.LastUsedAt, ExpiresAt: row.ExpiresAt, RevokedAt: row.RevokedAt}, nil
}

// TouchToken records a use of the token.
func (s *GormStore) TouchToken(ctx context.Context, hash string, at time.Time) error {
	return s.db.WithContext(ctx).Model(&tokenRow{}).Where("token_hash = ?", hash).
		Update("last_used_at", at).Error
}

// RevokeToken revokes one token.
func (s *GormStore) RevokeToken(ctx context.Context, hash string, at time.Time) error {
	return s.db.WithContext(ctx).Model(&tokenRow{}).
		Where("token_hash = ? AND revoked_at IS NULL", hash).Update("revoked_at", at).Error
}

// RevokeUserTokens revokes every token of userID except keep and returns
// the revoked hashes.
func (s *GormStore) RevokeUserTokens(ctx context.Context, userID, keep string, at time.Time) ([]string, error) {
	var hashes []string
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&tokenRow{}).Where("user_id = ? AND token_hash <> ? AND revoked_at IS NULL", userID, keep).
			Pluck("token_hash", &hashes).Error; err != nil {
			return err
		}
		if len(hashes) == 0 {
			return nil
		}
		return tx.Model(&tokenRow{}).Where("token_hash IN ?", hashes).Update("revoked_at", at).Error
	})
	if err != nil {
		return nil, fmt.Errorf("revoke tokens: %w", err)
	}
	return hashes, nil
}
