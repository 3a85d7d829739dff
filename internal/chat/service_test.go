package chat

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/xunzhi-ai/aimeeting/internal/aiconfig"
	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/db/dbtest"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
	"github.com/xunzhi-ai/aimeeting/internal/page"
)

// offlineResolver resolves every id to the offline model.
type offlineResolver struct{ p llm.Provider }

func (r offlineResolver) Resolve(_ context.Context, id string) (aiconfig.Resolved, error) {
	if id != "" && id != aiconfig.DefaultID {
		return aiconfig.Resolved{}, apperr.NotFound("enabled ai property")
	}
	return aiconfig.Resolved{Provider: r.p, ConfigID: aiconfig.DefaultID, Name: "Offline model (built-in)"}, nil
}

func MustService(tb testing.TB, gdb *gorm.DB) *Service {
	tb.Helper()
	return NewService(NewGormStore(gdb), offlineResolver{p: llm.NewOffline()}, Config{})
}

func MustConversation(tb testing.TB, svc *Service, userID string) Conversation {
	tb.Helper()
	conv, err := svc.Create(context.Background(), userID, CreateInput{FirstMessage: "hello"})
	if err != nil {
		tb.Fatalf("create conversation: %v", err)
	}
	return conv
}

// send runs one whole exchange.
func send(ctx context.Context, svc *Service, scope Scope, userID, convID, text string) (Result, error) {
	turn, err := svc.Prepare(ctx, userID, convID, scope, SendInput{InputMessage: text}, nil)
	if err != nil {
		return Result{}, err
	}
	return turn.Run(ctx, func(llm.Chunk) error { return nil })
}

// TestConcurrentMessagesGetConsecutiveSequences sends many messages to one
// conversation at once, from goroutines released together: every exchange
// must own two consecutive numbers (its message, then its answer), and the
// numbers must be 1..2n without gaps or duplicates.
func TestConcurrentMessagesGetConsecutiveSequences(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := MustService(t, gdb)
		conv := MustConversation(t, svc, "user1")
		const n = 8
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = send(ctx, svc, ScopeChat, "user1", conv.ID, fmt.Sprintf("message-%d", i))
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("send %d: %v", i, err)
			}
		}
		msgs, err := svc.History(ctx, "user1", conv.ID, ScopeChat)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2*n {
			t.Fatalf("got %d messages, want %d", len(msgs), 2*n)
		}
		for i, m := range msgs {
			if got, want := m.Seq, int64(i+1); got != want {
				t.Fatalf("message %d has seq %d, want %d", i, got, want)
			}
			if i%2 == 1 {
				user := msgs[i-1]
				if user.Type != TypeUser || m.Type != TypeAI {
					t.Fatalf("seq %d,%d have types %d,%d; want user then AI", user.Seq, m.Seq, user.Type, m.Type)
				}
				// The offline model echoes the message: the answer belongs to it.
				if !strings.Contains(m.Content, user.Content) {
					t.Fatalf("answer %d %q does not answer message %d %q", m.Seq, m.Content, user.Seq, user.Content)
				}
			}
		}
		got, err := svc.Get(ctx, "user1", conv.ID, ScopeChat)
		if err != nil {
			t.Fatal(err)
		}
		if got.MessageCount != 2*n || got.LastMessageAt == nil {
			t.Fatalf("conversation = %+v, want %d messages and a last message time", got, 2*n)
		}
	})
}

func TestConversationLifecycle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, gdb *gorm.DB) {
		ctx := context.Background()
		svc := MustService(t, gdb)
		conv := MustConversation(t, svc, "alice")
		res, err := send(ctx, svc, ScopeChat, "alice", conv.ID, "what is Go?")
		if err != nil {
			t.Fatal(err)
		}
		if res.MessageSeq != 2 || !res.Offline || res.TokenCount <= 0 {
			t.Fatalf("result = %+v, want seq 2, offline, tokens", res)
		}

		// Another user, or the agent scope, sees nothing.
		for _, try := range []struct {
			name  string
			user  string
			scope Scope
		}{{"other user", "bob", ScopeChat}, {"agent scope", "alice", ScopeAgent}} {
			t.Run(try.name, func(t *testing.T) {
				if _, err := svc.Get(ctx, try.user, conv.ID, try.scope); !apperr.Is(err, apperr.KindNotFound) {
					t.Fatalf("Get = %v, want not found", err)
				}
				if _, err := svc.History(ctx, try.user, conv.ID, try.scope); !apperr.Is(err, apperr.KindNotFound) {
					t.Fatalf("History = %v, want not found", err)
				}
				if _, err := send(ctx, svc, try.scope, try.user, conv.ID, "hi"); !apperr.Is(err, apperr.KindNotFound) {
					t.Fatalf("send = %v, want not found", err)
				}
				p, err := svc.MessagePage(ctx, try.user, MessageFilter{Scope: try.scope}, page.Request{Current: 1, Size: 10})
				if err != nil || p.Total != 0 {
					t.Fatalf("MessagePage = %+v, %v; want empty", p, err)
				}
			})
		}

		renamed, err := svc.Rename(ctx, "alice", conv.ID, ScopeChat, "  Go basics ")
		if err != nil || renamed.Title != "Go basics" {
			t.Fatalf("Rename = %+v, %v", renamed, err)
		}
		if _, err := svc.End(ctx, "alice", conv.ID, ScopeChat); err != nil {
			t.Fatal(err)
		}
		if _, err := send(ctx, svc, ScopeChat, "alice", conv.ID, "more?"); !apperr.Is(err, apperr.KindConflict) {
			t.Fatalf("send to ended conversation = %v, want conflict", err)
		}
		list, err := svc.List(ctx, "alice", ConversationFilter{Status: StatusEnded}, page.Request{Current: 1, Size: 10})
		if err != nil || list.Total != 1 || list.Records[0].MessageCount != 2 {
			t.Fatalf("List = %+v, %v", list, err)
		}
		if err := svc.Delete(ctx, "alice", conv.ID, ScopeChat); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.History(ctx, "alice", conv.ID, ScopeChat); !apperr.Is(err, apperr.KindNotFound) {
			t.Fatalf("History after delete = %v, want not found", err)
		}
		p, err := svc.MessagePage(ctx, "alice", MessageFilter{}, page.Request{Current: 1, Size: 10})
		if err != nil || p.Total != 0 {
			t.Fatalf("messages after delete = %+v, %v; want none", p, err)
		}
	})
}

// blockingProvider streams one chunk, reports that it started, then waits
// for its context to end.
type blockingProvider struct {
	llm.Provider // the methods not overridden are never called
	started      chan struct{}
}

func (p *blockingProvider) Offline() bool { return false }

func (p *blockingProvider) Stream(ctx context.Context, _ llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	if err := onChunk(llm.Chunk{Content: "partial"}); err != nil {
		return llm.Response{Content: "partial"}, err
	}
	close(p.started)
	<-ctx.Done()
	return llm.Response{Content: "partial"}, ctx.Err()
}

// TestCloseSavesStreamingAnswers shuts the service down while an answer
// streams: the model call ends and the partial answer is saved and marked.
func TestCloseSavesStreamingAnswers(t *testing.T) {
	ctx := context.Background()
	prov := &blockingProvider{started: make(chan struct{})}
	svc := NewService(NewGormStore(dbtest.SQLite(t)), offlineResolver{p: prov}, Config{})
	conv := MustConversation(t, svc, "alice")
	errc := make(chan error, 1)
	go func() {
		_, err := send(ctx, svc, ScopeChat, "alice", conv.ID, "hello")
		errc <- err
	}()
	<-prov.started
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !apperr.Is(err, apperr.KindUnavailable) {
		t.Fatalf("Run = %v, want unavailable", err)
	}
	msgs, err := svc.History(ctx, "alice", conv.ID, ScopeChat)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[1].Content != "partial" || msgs[1].ErrorMessage != ErrMsgShutdown {
		t.Fatalf("history = %+v", msgs)
	}
}
