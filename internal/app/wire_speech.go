package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/speech"
	"github.com/xunzhi-ai/aimeeting/internal/speech/openai"
	"github.com/xunzhi-ai/aimeeting/internal/speech/pocketsphinx"
	"github.com/xunzhi-ai/aimeeting/internal/speech/xunfei"
)

// mountSpeech builds the speech domain and mounts its routes on api: the
// transcription WebSocket (which authenticates itself) and the
// whole-recording upload (behind auth).
func (a *App) mountSpeech(api *gin.RouterGroup, auth gin.HandlerFunc) error {
	cfg := a.cfg.Speech
	rec, err := a.speechRecognizer(cfg)
	if err != nil {
		return err
	}
	a.log.Info("speech recogniser", "provider", rec.Name())
	authn := speech.AuthenticatorFunc(func(ctx context.Context, token string) (speech.Principal, error) {
		u, err := a.users.Authenticate(ctx, token)
		if err != nil {
			return speech.Principal{}, err
		}
		return speech.Principal{ID: u.ID, Username: u.Username}, nil
	})
	sockets := speech.NewServer(speech.Config{
		MaxSocketsPerUser: cfg.MaxSocketsPerUser,
		IdleTimeout:       cfg.IdleTimeout,
		MaxFrameBytes:     cfg.MaxFrameBytes,
	}, rec, authn, speech.NewMetrics(a.reg))
	a.closers = append(a.closers, func() error {
		// Open sockets get a 1001 close frame; their recognisers drain.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return sockets.Shutdown(ctx)
	})
	maxUpload := cfg.MaxUploadBytes
	if maxUpload <= 0 {
		maxUpload = 50 << 20
	}
	speech.NewHandler(sockets, speech.NewTranscriber(rec), maxUpload).Register(api, auth)
	return nil
}

// speechRecognizer builds the provider of speech.provider. "auto" is
// pocketsphinx when installed, else openai or xunfei when credentials are
// configured; with none the routes answer that speech is unavailable.
func (a *App) speechRecognizer(cfg SpeechConfig) (speech.Recognizer, error) {
	ps := func() (speech.Recognizer, error) {
		e, err := pocketsphinx.New(pocketsphinx.Config{ModelDir: cfg.Pocketsphinx.ModelDir,
			MaxDecoders: cfg.Pocketsphinx.MaxDecoders, MaxDecodersPerUser: cfg.Pocketsphinx.MaxDecodersPerUser,
			IdleRelease: cfg.Pocketsphinx.IdleRelease, Registerer: a.reg})
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, e.Close)
		return e, nil
	}
	oa := func() (speech.Recognizer, error) {
		return openai.New(openai.Config{BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey, Model: cfg.OpenAI.Model})
	}
	xf := func() (speech.Recognizer, error) {
		return xunfei.New(xunfei.Config{URL: cfg.Xunfei.URL, AppID: cfg.Xunfei.AppID,
			APIKey: cfg.Xunfei.APIKey, APISecret: cfg.Xunfei.APISecret})
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
			a.log.Warn("speech.provider is openai without speech.openai.api-key")
		}
		return oa()
	case "xunfei":
		return xf()
	case "auto", "":
		rec, err := ps()
		if err == nil {
			return rec, nil
		}
		if !errors.Is(err, pocketsphinx.ErrNotInstalled) {
			return nil, err
		}
		switch {
		case cfg.OpenAI.APIKey != "":
			return oa()
		case cfg.Xunfei.AppID != "" && cfg.Xunfei.APIKey != "":
			return xf()
		}
		a.log.Warn("no speech recogniser: install pocketsphinx (scripts/speech-deps.sh) or configure speech.openai / speech.xunfei", "err", err)
		return speech.Unavailable{Reason: "install pocketsphinx or configure speech.openai / speech.xunfei"}, nil
	}
	return nil, fmt.Errorf("speech.provider must be auto, pocketsphinx, openai or xunfei, got %q", cfg.Provider)
}
