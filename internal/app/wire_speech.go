package app

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/openai"
	"github.com/xunzhi-ai/aimeeting/internal/speech/pocketsphinx"
	"github.com/xunzhi-ai/aimeeting/internal/speech/xunfei"
	"github.com/xunzhi-ai/aimeeting/internal/speech/xunfeiast"
)

// speechMaxUpload is speech.max-upload-bytes, 50 MiB when unset.
func speechMaxUpload(cfg SpeechConfig) int64 {
	if cfg.MaxUploadBytes <= 0 {
		return 50 << 20
	}
	return cfg.MaxUploadBytes
}

// speechRecognizer builds the provider of speech.provider. "auto" is
// pocketsphinx when installed, else openai, xunfei or xunfei-ast when
// credentials are configured; with none the routes answer that speech is unavailable. A
// recogniser that is an io.Closer must be closed on shutdown.
func speechRecognizer(cfg SpeechConfig, log *slog.Logger, reg prometheus.Registerer) (speech.Recognizer, error) {
	ps := func() (speech.Recognizer, error) {
		e, err := pocketsphinx.New(pocketsphinx.Config{ModelDir: cfg.Pocketsphinx.ModelDir,
			MaxDecoders: cfg.Pocketsphinx.MaxDecoders, MaxDecodersPerUser: cfg.Pocketsphinx.MaxDecodersPerUser,
			IdleRelease: cfg.Pocketsphinx.IdleRelease, Registerer: reg})
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	oa := func() (speech.Recognizer, error) {
		rec, err := openai.New(openai.Config{BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey, Model: cfg.OpenAI.Model})
		if err != nil {
			return nil, fmt.Errorf("speech.openai: %w", err)
		}
		return rec, nil
	}
	xf := func() (speech.Recognizer, error) {
		rec, err := xunfei.New(xunfei.Config{URL: cfg.Xunfei.URL, AppID: cfg.Xunfei.AppID,
			APIKey: cfg.Xunfei.APIKey, APISecret: cfg.Xunfei.APISecret, SessionLimit: cfg.Xunfei.SessionLimit})
		if err != nil {
			return nil, fmt.Errorf("speech.xunfei: %w", err)
		}
		return rec, nil
	}
	ast := func() (speech.Recognizer, error) {
		rec, err := xunfeiast.New(xunfeiast.Config{URL: cfg.XunfeiAST.URL, AppID: cfg.XunfeiAST.AppID,
			APIKey: cfg.XunfeiAST.APIKey, APISecret: cfg.XunfeiAST.APISecret})
		if err != nil {
			return nil, fmt.Errorf("speech.xunfei-ast: %w", err)
		}
		return rec, nil
	}
	switch cfg.Provider {
	case "pocketsphinx":
		rec, err := ps()
		if err != nil {
			return nil, fmt.Errorf("speech.provider is pocketsphinx: %w", err)
		}
		return rec, nil
	case "openai":
		if cfg.OpenAI.APIKey == "" {
			log.Warn("speech.provider is openai without speech.openai.api-key")
		}
		return oa()
	case "xunfei":
		return xf()
	case "xunfei-ast":
		return ast()
	case "auto", "":
		rec, err := ps()
		if err == nil {
			return rec, nil
		}
		if !errors.Is(err, pocketsphinx.ErrNotInstalled) {
			return nil, fmt.Errorf("speech.pocketsphinx.model-dir: %w", err)
		}
		switch {
		case cfg.OpenAI.APIKey != "":
			return oa()
		case cfg.Xunfei.AppID != "" && cfg.Xunfei.APIKey != "":
			return xf()
		case cfg.XunfeiAST.AppID != "" && cfg.XunfeiAST.APIKey != "":
			return ast()
		}
		log.Warn("no speech recogniser: install pocketsphinx (scripts/speech-deps.sh) or configure speech.openai / speech.xunfei / speech.xunfei-ast", "err", err)
		return speech.Unavailable{Reason: "install pocketsphinx or configure speech.openai / speech.xunfei / speech.xunfei-ast"}, nil
	}
	return nil, fmt.Errorf("speech.provider must be auto, pocketsphinx, openai, xunfei or xunfei-ast, got %q", cfg.Provider)
}
