package app

import (
	"io"
	"log/slog"
	"strings"
	"testing"
)

func TestSpeechProviderXunfeiAST(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := SpeechConfig{Provider: "xunfei-ast", XunfeiAST: XunfeiConfig{
		URL: "wss://office-api-ast-dx.iflyaisol.com/ast/communicate/v1", AppID: "a", APIKey: "k", APISecret: "s"}}
	rec, err := speechRecognizer(cfg, log, nil)
	if err != nil || rec.Name() != "xunfei-ast" {
		t.Fatalf("speechRecognizer = %v, %v; want the xunfei-ast recogniser", rec, err)
	}
	cfg.XunfeiAST.APISecret = ""
	if _, err := speechRecognizer(cfg, log, nil); err == nil || !strings.HasPrefix(err.Error(), "speech.xunfei-ast: ") {
		t.Fatalf("without a secret: %v, want an error naming speech.xunfei-ast", err)
	}
	cfg.Provider = "nope"
	if _, err := speechRecognizer(cfg, log, nil); err == nil || !strings.Contains(err.Error(), "xunfei-ast") {
		t.Fatalf("unknown provider: %v, want the list of providers", err)
	}
}

func TestSpeechAutoPicksXunfeiASTWhenConfigured(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := SpeechConfig{Provider: "auto", Pocketsphinx: PocketsphinxConfig{ModelDir: t.TempDir() + "/none"},
		XunfeiAST: XunfeiConfig{URL: "wss://office-api-ast-dx.iflyaisol.com/ast/communicate/v1", AppID: "a", APIKey: "k", APISecret: "s"}}
	rec, err := speechRecognizer(cfg, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	// pocketsphinx wins where it is installed with its model; here the
	// model directory does not exist.
	t.Logf("auto picked %s", rec.Name())
	if rec.Name() != "xunfei-ast" && rec.Name() != "pocketsphinx" {
		t.Errorf("auto picked %q", rec.Name())
	}
}
