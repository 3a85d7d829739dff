package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/apperr"
	"github.com/xunzhi-ai/aimeeting/internal/llm"
)

func chatRequest(text string) llm.Request {
	return llm.Request{Stage: llm.StageChat, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a career coach."},
		{Role: llm.RoleUser, Content: text},
	}}
}

func TestOfflineChatIsDeterministicAndLabelled(t *testing.T) {
	o := llm.NewOffline()
	if !o.Offline() || o.SupportsVision() || o.Name() != "offline" {
		t.Fatalf("Offline %v, SupportsVision %v, Name %q; want true, false, offline", o.Offline(), o.SupportsVision(), o.Name())
	}
	req := chatRequest("How should I prepare for a Go interview about channels?")
	first, err := o.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := o.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("same input, different output:\n%+v\n%+v", first, second)
	}
	if !first.Offline || first.Model != llm.OfflineModel {
		t.Errorf("response = %+v, want Offline and model %q", first, llm.OfflineModel)
	}
	if !strings.HasPrefix(first.Content, llm.OfflineLabel) || !strings.Contains(first.Content, "Go interview about channels") {
		t.Errorf("content = %q, want the offline label and the user's words", first.Content)
	}
	other, _ := o.Generate(context.Background(), chatRequest("Something else"))
	if other.Content == first.Content {
		t.Error("different input, same output")
	}
}

func TestOfflineStreamsSeveralChunks(t *testing.T) {
	o := llm.NewOffline()
	req := chatRequest("Tell me about goroutines")
	var chunks []string
	got, err := o.Stream(context.Background(), req, func(ch llm.Chunk) error {
		chunks = append(chunks, ch.Content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 3 {
		t.Errorf("got %d chunks, want several", len(chunks))
	}
	if strings.Join(chunks, "") != got.Content {
		t.Errorf("chunks %q do not add up to %q", chunks, got.Content)
	}
	blocking, _ := o.Generate(context.Background(), req)
	if blocking.Content != got.Content {
		t.Errorf("stream %q != generate %q", got.Content, blocking.Content)
	}

	stop := errors.New("stop")
	partial, err := o.Stream(context.Background(), req, func(llm.Chunk) error { return stop })
	if !errors.Is(err, stop) || partial.Content != chunks[0] {
		t.Errorf("aborted stream = %q, %v; want %q, %v", partial.Content, err, chunks[0], stop)
	}
}

func TestOfflineHandleDispatchesByStage(t *testing.T) {
	o := llm.NewOffline()
	o.Handle("interview-followup", func(_ context.Context, req llm.Request) (string, error) {
		return `{"followUp": "Why?", "endInterview": false}`, nil
	})
	got, err := o.Generate(context.Background(), llm.Request{Stage: "interview-followup"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"followUp": "Why?", "endInterview": false}`; got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}

	_, err = o.Generate(context.Background(), llm.Request{Stage: "interview-demeanor"})
	e := apperr.As(err)
	if e == nil || e.Retryable || !strings.Contains(e.Message, `cannot do stage "interview-demeanor"`) {
		t.Errorf("unknown stage: err = %#v, want a non-retryable *apperr.Error naming the stage", err)
	}

	o.Handle("broken", func(context.Context, llm.Request) (string, error) { return "", errors.New("bug") })
	if _, err := o.Generate(context.Background(), llm.Request{Stage: "broken"}); apperr.As(err) == nil {
		t.Errorf("failing responder: err = %v, want an *apperr.Error", err)
	}
}

func TestOfflineHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := llm.NewOffline().Generate(ctx, chatRequest("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// A Chinese message gets a Chinese answer with no English words; an
// English one (even naming a Chinese place) stays English.
func TestOfflineChatAnswersChineseInChinese(t *testing.T) {
	o := llm.NewOffline()
	got, err := o.Generate(context.Background(), chatRequest("怎么准备 Redis 面试？"))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.OfflineLabelZH + " 当前没有配置 AI 模型，这条回复来自内置的离线模型。你说了（7 个字）：“怎么准备 Redis 面试？”"
	if got.Content != want {
		t.Errorf("content = %q, want %q", got.Content, want)
	}
	// Outside the user's own words only the term "AI" is in Latin letters.
	rest := strings.Replace(got.Content, "Redis", "", 1)
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') }) {
		if w != "AI" {
			t.Errorf("English word %q in the Chinese answer %q", w, got.Content)
		}
	}
	en, err := o.Generate(context.Background(), chatRequest("Any tips for interviews in 北京?"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(en.Content, llm.OfflineLabel) || !strings.Contains(en.Content, "You said (6 words)") {
		t.Errorf("English content = %q", en.Content)
	}
}
