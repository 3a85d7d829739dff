package tts

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// Store persists tasks. Every state change is a conditional update that
// reports whether it applied, so that instances racing on a row (claim,
// cancel, finish) never both win.
type Store interface {
	Create(ctx context.Context, t *Task) error
	// Get returns the task; userID "" means any owner. A missing task or
	// another user's is apperr NotFound.
	Get(ctx context.Context, id, userID string) (*Task, error)
	// List returns a page of userID's tasks, newest first, with Text cut to
	// a preview.
	List(ctx context.Context, userID string, r page.Request) ([]*Task, int64, error)
	// Claimable returns up to limit ids of tasks waiting for a worker:
	// created, or running with an expired lease.
	Claimable(ctx context.Context, now time.Time, limit int) ([]string, error)
	// Claim makes owner the task's worker until leaseUntil when it is still
	// claimable, counting an attempt.
	Claim(ctx context.Context, id, owner string, now, leaseUntil time.Time) (bool, error)
	// Heartbeat extends owner's lease while the task is still running and
	// owner's; false means the task was cancelled or taken over.
	Heartbeat(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error)
	// Progress raises segments_done of a running task (never lowers it).
	Progress(ctx context.Context, id string, done int) (bool, error)
	// Finish marks owner's running task done.
	Finish(ctx context.Context, id, owner string, durationMs, bytes int64) (bool, error)
	// Fail marks a created or running task failed; owner "" matches any.
	Fail(ctx context.Context, id, owner, msg string) (bool, error)
	// Release gives up owner's claim without counting the attempt (graceful
	// shutdown): the task stays running and is claimable at once.
	Release(ctx context.Context, id, owner string) (bool, error)
	// Delete removes a finished (done or failed) task of userID.
	Delete(ctx context.Context, id, userID string) (bool, error)
	// KeyInUse reports whether a task other than exceptID may still use the
	// audio of key (created, running or done).
	KeyInUse(ctx context.Context, key, exceptID string) (bool, error)
	// KeyPending reports whether a task with key is queued or running, so
	// may still need the segments in its work directory.
	KeyPending(ctx context.Context, key string) (bool, error)
}

// taskRow is the gorm row of tts_tasks.
type taskRow struct {
	ID            string `gorm:"primaryKey"`
	UserID        string
	Text          string
	Params        string
	AudioKey      string
	Status        int
	SegmentsDone  int
	SegmentsTotal int
	DurationMs    int64
	AudioBytes    int64
	ErrorMessage  string
	Owner         string
	LeaseUntil    *time.Time
	Attempts      int
	CreatedAt     time.Time
	UpdatedAt     time.Time
	FinishedAt    *time.Time
}

func (taskRow) TableName() string { return "tts_tasks" }

func toRow(t *Task) (taskRow, error) {
	p, err := json.Marshal(t.Params)
	if err != nil {
		return taskRow{}, err
	}
	r := taskRow{ID: t.ID, UserID: t.UserID, Text: t.Text, Params: string(p), AudioKey: t.Key,
		Status: int(t.Status), SegmentsDone: t.SegmentsDone, SegmentsTotal: t.SegmentsTotal,
		DurationMs: t.DurationMs, AudioBytes: t.AudioBytes, ErrorMessage: t.ErrorMessage, Owner: t.Owner,
		Attempts: t.Attempts, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, FinishedAt: t.FinishedAt}
	if !t.LeaseUntil.IsZero() {
		l := t.LeaseUntil
		r.LeaseUntil = &l
	}
	return r, nil
}

func (r taskRow) task() *Task {
	t := &Task{ID: r.ID, UserID: r.UserID, Text: r.Text, Key: r.AudioKey, Status: Status(r.Status),
		SegmentsDone: r.SegmentsDone, SegmentsTotal: r.SegmentsTotal, DurationMs: r.DurationMs,
		AudioBytes: r.AudioBytes, ErrorMessage: r.ErrorMessage, Owner: r.Owner, Attempts: r.Attempts,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), FinishedAt: r.FinishedAt}
	if r.LeaseUntil != nil {
		t.LeaseUntil = r.LeaseUntil.UTC()
	}
	_ = json.Unmarshal([]byte(r.Params), &t.Params) // written by toRow
	return t
}

// GormStore is the Store on gorm (SQLite or MariaDB/MySQL).
type GormStore struct{ db *gorm.DB }

var _ Store = (*GormStore)(nil)

// NewGormStore returns a Store on gdb (migrated by db.Open).
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

func now() time.Time { return time.Now().UTC() }

// Create implements Store.
func (s *GormStore) Create(ctx context.Context, t *Task) error {
	r, err := toRow(t)
	if err != nil {
		return apperr.Internal(err)
	}
	if err := s.db.WithContext(ctx).Create(&r).Error; err != nil {
		return apperr.Internal(fmt.Errorf("create tts task: %w", err))
	}
	return nil
}

// Get implements Store.
func (s *GormStore) Get(ctx context.Context, id, userID string) (*Task, error) {
	q := s.db.WithContext(ctx).Where("id = ?", id)
	if userID != "" {
		q = q.Where("user_id = ?", userID)
	}
	var r taskRow
	if err := q.Take(&r).Error; err != nil {
		if db.IsNotFound(err) {
			return nil, apperr.New(apperr.KindNotFound, "tts task %s not found", id)
		}
		return nil, apperr.Internal(fmt.Errorf("get tts task: %w", err))
	}
	return r.task(), nil
}

// List implements Store.
func (s *GormStore) List(ctx context.Context, userID string, pr page.Request) ([]*Task, int64, error) {
	q := s.db.WithContext(ctx).Model(&taskRow{}).Where("user_id = ?", userID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, apperr.Internal(fmt.Errorf("count tts tasks: %w", err))
	}
	var rows []taskRow
	// The text may be 100,000 characters: fetch a preview only.
	err := q.Select("id, user_id, SUBSTR(text, 1, 41) AS text, params, audio_key, status, segments_done, segments_total, " +
		"duration_ms, audio_bytes, error_message, owner, lease_until, attempts, created_at, updated_at, finished_at").
		Order("created_at DESC, id DESC").Offset(pr.Offset()).Limit(pr.Size).Find(&rows).Error
	if err != nil {
		return nil, 0, apperr.Internal(fmt.Errorf("list tts tasks: %w", err))
	}
	out := make([]*Task, len(rows))
	for i, r := range rows {
		out[i] = r.task()
	}
	return out, total, nil
}

// Claimable implements Store.
func (s *GormStore) Claimable(ctx context.Context, at time.Time, limit int) ([]string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&taskRow{}).
		Where("status = ? OR (status = ? AND (owner = '' OR lease_until IS NULL OR lease_until < ?))",
			int(StatusCreated), int(StatusRunning), at).
		Order("created_at").Limit(limit).Pluck("id", &ids).Error
	if err != nil {
		return nil, apperr.Internal(fmt.Errorf("find claimable tts tasks: %w", err))
	}
	return ids, nil
}

// update applies values to the rows of where and reports whether one changed.
func (s *GormStore) update(ctx context.Context, op string, values map[string]any, where string, args ...any) (bool, error) {
	values["updated_at"] = now()
	res := s.db.WithContext(ctx).Model(&taskRow{}).Where(where, args...).Updates(values)
	if res.Error != nil {
		return false, apperr.Internal(fmt.Errorf("%s tts task: %w", op, res.Error))
	}
	return res.RowsAffected > 0, nil
}

// Claim implements Store.
func (s *GormStore) Claim(ctx context.Context, id, owner string, at, leaseUntil time.Time) (bool, error) {
	return s.update(ctx, "claim", map[string]any{"owner": owner, "lease_until": leaseUntil,
		"status": int(StatusRunning), "attempts": gorm.Expr("attempts + 1")},
		"id = ? AND (status = ? OR (status = ? AND (owner = '' OR lease_until IS NULL OR lease_until < ?)))",
		id, int(StatusCreated), int(StatusRunning), at)
}

// Heartbeat implements Store.
func (s *GormStore) Heartbeat(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error) {
	return s.update(ctx, "heartbeat", map[string]any{"lease_until": leaseUntil},
		"id = ? AND owner = ? AND status = ?", id, owner, int(StatusRunning))
}

// Progress implements Store.
func (s *GormStore) Progress(ctx context.Context, id string, done int) (bool, error) {
	return s.update(ctx, "progress", map[string]any{"segments_done": done},
		"id = ? AND status = ? AND segments_done < ?", id, int(StatusRunning), done)
}

// Finish implements Store.
func (s *GormStore) Finish(ctx context.Context, id, owner string, durationMs, bytes int64) (bool, error) {
	return s.update(ctx, "finish", map[string]any{"status": int(StatusDone), "segments_done": gorm.Expr("segments_total"),
		"duration_ms": durationMs, "audio_bytes": bytes, "owner": "", "lease_until": nil, "finished_at": now()},
		"id = ? AND owner = ? AND status = ?", id, owner, int(StatusRunning))
}

// Fail implements Store.
func (s *GormStore) Fail(ctx context.Context, id, owner, msg string) (bool, error) {
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	where, args := "id = ? AND status IN (?, ?)", []any{id, int(StatusCreated), int(StatusRunning)}
	if owner != "" {
		where, args = where+" AND owner = ?", append(args, owner)
	}
	return s.update(ctx, "fail", map[string]any{"status": int(StatusFailed), "error_message": msg,
		"owner": "", "lease_until": nil, "finished_at": now()}, where, args...)
}

// Release implements Store.
func (s *GormStore) Release(ctx context.Context, id, owner string) (bool, error) {
	return s.update(ctx, "release", map[string]any{"owner": "", "lease_until": nil,
		"attempts": gorm.Expr("CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END")},
		"id = ? AND owner = ? AND status = ?", id, owner, int(StatusRunning))
}

// Delete implements Store.
func (s *GormStore) Delete(ctx context.Context, id, userID string) (bool, error) {
	res := s.db.WithContext(ctx).Where("id = ? AND user_id = ? AND status IN (?, ?)", id, userID,
		int(StatusFailed), int(StatusDone)).Delete(&taskRow{})
	if res.Error != nil {
		return false, apperr.Internal(fmt.Errorf("delete tts task: %w", res.Error))
	}
	return res.RowsAffected > 0, nil
}

// KeyInUse implements Store.
func (s *GormStore) KeyInUse(ctx context.Context, key, exceptID string) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&taskRow{}).Where("audio_key = ? AND id <> ? AND status IN (?, ?, ?)",
		key, exceptID, int(StatusCreated), int(StatusRunning), int(StatusDone)).Count(&n).Error
	if err != nil {
		return false, apperr.Internal(fmt.Errorf("count tts tasks by key: %w", err))
	}
	return n > 0, nil
}

// KeyPending implements Store.
func (s *GormStore) KeyPending(ctx context.Context, key string) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&taskRow{}).Where("audio_key = ? AND status IN (?, ?)",
		key, int(StatusCreated), int(StatusRunning)).Count(&n).Error
	if err != nil {
		return false, apperr.Internal(fmt.Errorf("count pending tts tasks by key: %w", err))
	}
	return n > 0, nil
}
