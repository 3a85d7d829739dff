package app

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/gin-gonic/gin"

	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
	"github.com/xunzhi-ai/aimeeting/internal/tts/openai"
	"github.com/xunzhi-ai/aimeeting/internal/tts/xunfei"
)

// mountTts builds the tts domain and mounts its routes on api.
//
// Audio lives under <data-dir>/tts: instances sharing a database must share
// that directory too (see docs/tts.md). The worker starts here; closing it
// (first among a.closers, newest first) releases the tasks it runs so that
// they resume elsewhere or after a restart.
func (a *App) mountTts(api *gin.RouterGroup, auth gin.HandlerFunc) error {
	cfg := a.cfg.TTS
	name, synth, err := ttsProvider(cfg)
	if err != nil {
		return err
	}
	if synth == nil {
		a.log.Warn("no TTS provider: install espeak-ng (scripts/tts-deps.sh) or set tts.provider; TTS requests will fail with 503")
	}
	lame, _ := exec.LookPath("lame")
	tcfg := tts.DefaultConfig()
	tcfg.DataDir = filepath.Join(a.cfg.DataDir, "tts")
	tcfg.Provider = name
	tcfg.MaxConcurrency = cfg.MaxConcurrency
	tcfg.SegmentMaxChars = cfg.SegmentMaxChars
	tcfg.SynthesizeWait = cfg.SynthesizeWait
	tcfg.Lame = lame
	tcfg.BasePath = APIPrefix + "/xunfei/tts"
	if a.cfg.Agent.SingleFlight.InstanceID != "" {
		tcfg.InstanceID = a.cfg.Agent.SingleFlight.InstanceID
	}
	svc, err := tts.NewService(tts.NewGormStore(a.db), synth, a.flights, tcfg, a.log.With("domain", "tts"), a.reg)
	if err != nil {
		return err
	}
	// Event streams end when shutdown starts instead of holding it up.
	tts.NewHandler(svc, a.stopping).Register(api.Group("/xunfei/tts"), auth)
	svc.Start()
	a.closers = append(a.closers, svc.Close)
	a.log.Info("tts ready", "provider", name, "mp3", lame != "", "maxConcurrency", svc.Config().MaxConcurrency)
	return nil
}

// ttsProvider builds the synthesizer of tts.provider; auto is espeak-ng when
// installed, else openai when an API key is set, else none (nil).
func ttsProvider(cfg TTSConfig) (string, tts.Synthesizer, error) {
	name := cfg.Provider
	if name == "" || name == "auto" {
		switch {
		case espeak.Available(cfg.Espeak.Binary):
			name = "espeak-ng"
		case cfg.OpenAI.APIKey != "":
			name = "openai"
		default:
			return "none", nil, nil
		}
	}
	switch name {
	case "espeak-ng", "espeak":
		s, err := espeak.New(cfg.Espeak.Binary)
		if err != nil {
			return "", nil, fmt.Errorf("tts.provider espeak-ng: %w", err)
		}
		return "espeak-ng", s, nil
	case "openai":
		s, err := openai.New(openai.Config{BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey,
			Model: cfg.OpenAI.Model, Voice: cfg.OpenAI.Voice})
		if err != nil {
			return "", nil, err
		}
		return name, s, nil
	case "xunfei":
		s, err := xunfei.New(xunfei.Config{CreateURL: cfg.Xunfei.URL, AppID: cfg.Xunfei.AppID,
			APIKey: cfg.Xunfei.APIKey, APISecret: cfg.Xunfei.APISecret})
		if err != nil {
			return "", nil, err
		}
		return name, s, nil
	}
	return "", nil, fmt.Errorf("tts.provider must be auto, espeak-ng, openai or xunfei, got %q", name)
}
