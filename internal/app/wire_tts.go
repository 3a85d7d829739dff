package app

import (
	"fmt"
	"os/exec"

	"github.com/xunzhi-ai/aimeeting/internal/blobstore"
	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
	"github.com/xunzhi-ai/aimeeting/internal/tts/openai"
	"github.com/xunzhi-ai/aimeeting/internal/tts/xunfei"
)

// ttsConfig maps tts.* onto the service's config for the provider named
// name: audio in files, MP3 when lame is installed.
func ttsConfig(cfg Config, name string, files *blobstore.Store) tts.Config {
	lame, _ := exec.LookPath("lame")
	out := tts.DefaultConfig()
	out.Files = files
	out.Presign = cfg.Storage.Presign
	out.Provider = name
	out.MaxConcurrency = cfg.TTS.MaxConcurrency
	out.SegmentMaxChars = cfg.TTS.SegmentMaxChars
	out.SynthesizeWait = cfg.TTS.SynthesizeWait
	out.Lame = lame
	out.BasePath = APIPrefix + "/xunfei/tts"
	if cfg.Agent.SingleFlight.InstanceID != "" {
		out.InstanceID = cfg.Agent.SingleFlight.InstanceID
	}
	return out
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
			return "", nil, fmt.Errorf("tts.espeak.binary: %w", err)
		}
		return "espeak-ng", s, nil
	case "openai":
		s, err := openai.New(openai.Config{BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey,
			Model: cfg.OpenAI.Model, Voice: cfg.OpenAI.Voice})
		if err != nil {
			return "", nil, fmt.Errorf("tts.openai: %w", err)
		}
		return name, s, nil
	case "xunfei":
		s, err := xunfei.New(xunfei.Config{CreateURL: cfg.Xunfei.URL, AppID: cfg.Xunfei.AppID,
			APIKey: cfg.Xunfei.APIKey, APISecret: cfg.Xunfei.APISecret})
		if err != nil {
			return "", nil, fmt.Errorf("tts.xunfei: %w", err)
		}
		return name, s, nil
	}
	return "", nil, fmt.Errorf("tts.provider must be auto, espeak-ng, openai or xunfei, got %q", name)
}
