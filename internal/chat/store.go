package chat

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// errConversationMissing is the 404 of every conversation the caller cannot
// see: missing, deleted, another user's, or of the other scope.
var errConversationMissing = apperr.NotFound("conversation")

// errEnded rejects new messages to an ended conversation.
var errEnded = apperr.Conflict("the conversation has ended; start a new one to keep chatting").WithCode(apperr.CodeInvalidState)

type conversationRow struct {
	ID            string `gorm:"primaryKey"`
	UserID        string
	AgentID       string
	AgentName     string
	AIID          string `gorm:"column:ai_id"`
	AIName        string `gorm:"column:ai_name"`
	Title         string
	Status        string
	NextSeq       int64
	MessageCount  int
	LastMessageAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	DeletedAt     *time.Time
}

func (conversationRow) TableName() string { return "chat_conversations" }

func toConversationRow(c Conversation) conversationRow {
	return conversationRow{ID: c.ID, UserID: c.UserID, AgentID: c.AgentID, AgentName: c.AgentName, AIID: c.AIID,
		AIName: c.AIName, Title: c.Title, Status: c.Status, NextSeq: 1, MessageCount: c.MessageCount,
		LastMessageAt: c.LastMessageAt, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

func (r conversationRow) toConversation() Conversation {
	return Conversation{ID: r.ID, UserID: r.UserID, AgentID: r.AgentID, AgentName: r.AgentName, AIID: r.AIID,
		AIName: r.AIName, Title: r.Title, Status: r.Status, MessageCount: r.MessageCount,
		LastMessageAt: r.LastMessageAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

type messageRow struct {
	ID               string `gorm:"primaryKey"`
	ConversationID   string
	UserID           string
	MessageSeq       int64
	MessageType      int
	Content          *string
	ReasoningContent *string
	TokenCount       int
	ResponseTimeMs   int64
	ErrorMessage     string
	Offline          bool
	CreatedAt        time.Time
	DeletedAt        *time.Time
}

func (messageRow) TableName() string { return "chat_messages" }

func toMessageRow(m Message) messageRow {
	r := messageRow{ID: m.ID, ConversationID: m.ConversationID, UserID: m.UserID, MessageSeq: m.Seq,
		MessageType: m.Type, Content: &m.Content, TokenCount: m.TokenCount, ResponseTimeMs: m.ResponseTimeMs,
		ErrorMessage: m.ErrorMessage, Offline: m.Offline, CreatedAt: m.CreatedAt}
	if m.Reasoning != "" {
		r.ReasoningContent = &m.Reasoning
	}
	return r
}

func (r messageRow) toMessage() Message {
	m := Message{ID: r.ID, ConversationID: r.ConversationID, UserID: r.UserID, Seq: r.MessageSeq,
		Type: r.MessageType, TokenCount: r.TokenCount, ResponseTimeMs: r.ResponseTimeMs,
		ErrorMessage: r.ErrorMessage, Offline: r.Offline, CreatedAt: r.CreatedAt}
	if r.Content != nil {
		m.Content = *r.Content
	}
	if r.ReasoningContent != nil {
		m.Reasoning = *r.ReasoningContent
	}
	return m
}

// GormStore keeps conversations and messages in the SQL database.
type GormStore struct{ db *gorm.DB }

// NewGormStore returns a store on gdb.
func NewGormStore(gdb *gorm.DB) *GormStore { return &GormStore{db: gdb} }

var _ Store = (*GormStore)(nil)

// scopeWhere is the condition selecting the conversations of scope.
func scopeWhere(scope Scope) string {
	if scope == ScopeAgent {
		return "agent_id <> ''"
	}
	return "agent_id = ''"
}

// CreateConversation inserts c.
func (s *GormStore) CreateConversation(ctx context.Context, c Conversation) error {
	r := toConversationRow(c)
	if err := s.db.WithContext(ctx).Create(&r).Error; err != nil {
		return fmt.Errorf("create conversation: %w", err)
	}
	return nil
}

// visible selects the caller's live conversation id of scope.
func (s *GormStore) visible(tx *gorm.DB, userID, id string, scope Scope) *gorm.DB {
	return tx.Model(&conversationRow{}).
		Where("id = ? AND user_id = ? AND deleted_at IS NULL", id, userID).Where(scopeWhere(scope))
}

// GetConversation returns the caller's conversation, or a 404.
func (s *GormStore) GetConversation(ctx context.Context, userID, id string, scope Scope) (Conversation, error) {
	var r conversationRow
	err := s.visible(s.db.WithContext(ctx), userID, id, scope).Take(&r).Error
	if db.IsNotFound(err) {
		return Conversation{}, errConversationMissing
	}
	if err != nil {
		return Conversation{}, fmt.Errorf("get conversation: %w", err)
	}
	return r.toConversation(), nil
}

// ListConversations returns a page of the caller's conversations, the one
// with the latest message (or, without messages, the latest created) first.
func (s *GormStore) ListConversations(ctx context.Context, userID string, f ConversationFilter, p page.Request) (page.Result[Conversation], error) {
	q := s.db.WithContext(ctx).Model(&conversationRow{}).
		Where("user_id = ? AND deleted_at IS NULL", userID).Where(scopeWhere(f.Scope))
	if f.AIID != "" {
		q = q.Where("ai_id = ?", f.AIID)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Keyword != "" {
		pat := db.LikePattern(f.Keyword)
		q = q.Where("(title LIKE ?"+db.LikeEscape+" OR agent_name LIKE ?"+db.LikeEscape+")", pat, pat)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[Conversation]{}, fmt.Errorf("count conversations: %w", err)
	}
	var rows []conversationRow
	if err := q.Order("COALESCE(last_message_at, created_at) DESC, id DESC").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[Conversation]{}, fmt.Errorf("list conversations: %w", err)
	}
	out := make([]Conversation, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.toConversation()
		ids[i] = r.ID
	}
	if len(ids) > 0 {
		var sums []struct {
			ConversationID string
			Total          int64
		}
		if err := s.db.WithContext(ctx).Model(&messageRow{}).Select("conversation_id, SUM(token_count) AS total").
			Where("conversation_id IN ? AND deleted_at IS NULL", ids).Group("conversation_id").Scan(&sums).Error; err != nil {
			return page.Result[Conversation]{}, fmt.Errorf("sum conversation tokens: %w", err)
		}
		for _, sum := range sums {
			for i := range out {
				if out[i].ID == sum.ConversationID {
					out[i].TotalTokens = sum.Total
				}
			}
		}
	}
	return page.NewResult(p, out, total), nil
}

// Rename sets the title of the caller's conversation.
func (s *GormStore) Rename(ctx context.Context, userID, id string, scope Scope, title string, now time.Time) error {
	res := s.visible(s.db.WithContext(ctx), userID, id, scope).Updates(map[string]any{"title": title, "updated_at": now})
	if res.Error != nil {
		return fmt.Errorf("rename conversation: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return errConversationMissing
	}
	return nil
}

// End marks the caller's conversation ended; ending it twice is fine.
func (s *GormStore) End(ctx context.Context, userID, id string, scope Scope, now time.Time) error {
	res := s.visible(s.db.WithContext(ctx), userID, id, scope).Updates(map[string]any{"status": StatusEnded, "updated_at": now})
	if res.Error != nil {
		return fmt.Errorf("end conversation: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return errConversationMissing
	}
	return nil
}

// Delete soft-deletes the caller's conversation and its messages.
func (s *GormStore) Delete(ctx context.Context, userID, id string, scope Scope, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := s.visible(tx, userID, id, scope).Updates(map[string]any{"deleted_at": now, "updated_at": now})
		if res.Error != nil {
			return fmt.Errorf("delete conversation: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return errConversationMissing
		}
		if err := tx.Model(&messageRow{}).Where("conversation_id = ? AND deleted_at IS NULL", id).
			Update("deleted_at", now).Error; err != nil {
			return fmt.Errorf("delete messages: %w", err)
		}
		return nil
	})
}

// AddExchange stores the user message m of a new exchange and reserves the
// next sequence number for its answer, atomically: within one transaction
// it increments the conversation's next_seq by two (which locks the row in
// MySQL and takes SQLite's write lock, so concurrent exchanges, from any
// instance, queue here) and reads it back. The message gets the first
// number, the answer will get the second. Only an active conversation of
// the caller accepts a message. It returns m with its Seq set.
func (s *GormStore) AddExchange(ctx context.Context, m Message, scope Scope) (Message, error) {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := s.visible(tx, m.UserID, m.ConversationID, scope).Where("status = ?", StatusActive).
			Updates(map[string]any{
				"next_seq":        gorm.Expr("next_seq + 2"),
				"message_count":   gorm.Expr("message_count + 1"),
				"last_message_at": m.CreatedAt,
				"updated_at":      m.CreatedAt,
			})
		if res.Error != nil {
			return fmt.Errorf("reserve message sequence: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			var r conversationRow
			err := s.visible(tx, m.UserID, m.ConversationID, scope).Take(&r).Error
			if db.IsNotFound(err) {
				return errConversationMissing
			}
			if err != nil {
				return fmt.Errorf("get conversation: %w", err)
			}
			return errEnded
		}
		var next int64
		if err := tx.Model(&conversationRow{}).Where("id = ?", m.ConversationID).Select("next_seq").Scan(&next).Error; err != nil {
			return fmt.Errorf("read message sequence: %w", err)
		}
		m.Seq = next - 2
		r := toMessageRow(m)
		if err := tx.Create(&r).Error; err != nil {
			if db.IsDuplicate(err) {
				// The reservation makes this unreachable; the unique index
				// is the last line of defence against a broken sequence.
				return apperr.Conflict("message sequence %d is taken; retry", m.Seq).AsRetryable().WithCause(err)
			}
			return fmt.Errorf("create message: %w", err)
		}
		return nil
	})
	if err != nil {
		return Message{}, err
	}
	return m, nil
}

// AddReply stores the answer m under the sequence number its exchange
// reserved. It is stored even when the conversation has ended or was
// deleted meanwhile (then hidden with it).
func (s *GormStore) AddReply(ctx context.Context, m Message) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var conv conversationRow
		if err := tx.Where("id = ?", m.ConversationID).Take(&conv).Error; err != nil {
			return fmt.Errorf("get conversation: %w", err)
		}
		r := toMessageRow(m)
		r.DeletedAt = conv.DeletedAt
		if err := tx.Create(&r).Error; err != nil {
			return fmt.Errorf("create reply: %w", err)
		}
		if err := tx.Model(&conversationRow{}).Where("id = ?", m.ConversationID).Updates(map[string]any{
			"message_count":   gorm.Expr("message_count + 1"),
			"last_message_at": m.CreatedAt,
			"updated_at":      m.CreatedAt,
		}).Error; err != nil {
			return fmt.Errorf("count reply: %w", err)
		}
		return nil
	})
}

// errNothingToRegenerate and errAnswerRunning refuse a regeneration.
var (
	errNothingToRegenerate = apperr.Conflict("there is no answer to regenerate yet; send a message first").WithCode(apperr.CodeInvalidState)
	errAnswerRunning       = apperr.Conflict("the last answer is still being written; wait for it or stop it, then regenerate").
				WithCode(apperr.CodeInvalidState).AsRetryable()
)

// TakeLastAnswer removes the last answer of the caller's active
// conversation so that it can be written again, and returns the user
// message it answered. The conversation row is locked for the check, so of
// two regenerations at once one gets a 409 (errAnswerRunning): after the
// first removed the answer, the last message is a user message without one,
// which is also what an answer still being streamed looks like.
func (s *GormStore) TakeLastAnswer(ctx context.Context, userID, id string, scope Scope, now time.Time) (Message, error) {
	var user Message
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := s.visible(tx, userID, id, scope).Where("status = ?", StatusActive).Update("updated_at", now)
		if res.Error != nil {
			return fmt.Errorf("lock conversation: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			var r conversationRow
			err := s.visible(tx, userID, id, scope).Take(&r).Error
			if db.IsNotFound(err) {
				return errConversationMissing
			}
			if err != nil {
				return fmt.Errorf("get conversation: %w", err)
			}
			return errEnded
		}
		var last []messageRow
		if err := tx.Where("conversation_id = ? AND deleted_at IS NULL", id).Order("message_seq DESC").Limit(2).
			Find(&last).Error; err != nil {
			return fmt.Errorf("last messages: %w", err)
		}
		switch {
		case len(last) == 0:
			return errNothingToRegenerate
		case last[0].MessageType != TypeAI:
			return errAnswerRunning
		case len(last) < 2 || last[1].MessageType != TypeUser || last[1].MessageSeq != last[0].MessageSeq-1:
			return errNothingToRegenerate
		}
		// The answer's sequence number is reused by the new answer (the
		// unique index forbids a second row, even a soft-deleted one).
		if err := tx.Where("id = ?", last[0].ID).Delete(&messageRow{}).Error; err != nil {
			return fmt.Errorf("remove answer: %w", err)
		}
		if err := tx.Model(&conversationRow{}).Where("id = ?", id).
			Update("message_count", gorm.Expr("message_count - 1")).Error; err != nil {
			return fmt.Errorf("count answer: %w", err)
		}
		user = last[1].toMessage()
		return nil
	})
	return user, err
}

// Recent returns up to limit messages of the conversation numbered below
// seq, in sequence order.
func (s *GormStore) Recent(ctx context.Context, conversationID string, seq int64, limit int) ([]Message, error) {
	var rows []messageRow
	err := s.db.WithContext(ctx).Where("conversation_id = ? AND message_seq < ? AND deleted_at IS NULL", conversationID, seq).
		Order("message_seq DESC").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("recent messages: %w", err)
	}
	out := make([]Message, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = r.toMessage()
	}
	return out, nil
}

// History returns every message of the caller's conversation in sequence
// order (at most limit).
func (s *GormStore) History(ctx context.Context, userID, conversationID string, limit int) ([]Message, error) {
	var rows []messageRow
	err := s.db.WithContext(ctx).Where("conversation_id = ? AND user_id = ? AND deleted_at IS NULL", conversationID, userID).
		Order("message_seq").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := make([]Message, len(rows))
	for i, r := range rows {
		out[i] = r.toMessage()
	}
	return out, nil
}

// MessagePage returns a page of the caller's messages in scope, newest
// first.
func (s *GormStore) MessagePage(ctx context.Context, userID string, f MessageFilter, p page.Request) (page.Result[Message], error) {
	convs := s.db.Model(&conversationRow{}).Select("id").
		Where("user_id = ? AND deleted_at IS NULL", userID).Where(scopeWhere(f.Scope))
	if f.ConversationID != "" {
		convs = convs.Where("id = ?", f.ConversationID)
	}
	q := s.db.WithContext(ctx).Model(&messageRow{}).
		Where("user_id = ? AND deleted_at IS NULL AND conversation_id IN (?)", userID, convs)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return page.Result[Message]{}, fmt.Errorf("count messages: %w", err)
	}
	var rows []messageRow
	if err := q.Order("created_at DESC, message_seq DESC, id DESC").Offset(p.Offset()).Limit(p.Size).Find(&rows).Error; err != nil {
		return page.Result[Message]{}, fmt.Errorf("list messages: %w", err)
	}
	out := make([]Message, len(rows))
	for i, r := range rows {
		out[i] = r.toMessage()
	}
	return page.NewResult(p, out, total), nil
}
