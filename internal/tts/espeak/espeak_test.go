package espeak_test

import (
	"strings"
	"testing"

	"github.com/xunzhi-ai/aimeeting/internal/tts"
	"github.com/xunzhi-ai/aimeeting/internal/tts/espeak"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		text string
		p    tts.Params
		want string
	}{
		{"defaults english", "Hello.", tts.Params{Speed: 50, Pitch: 50, Volume: 50}, "-v en-us -s 175 -p 50 -a 100 --stdout -- Hello."},
		{"chinese detected", "你好 world", tts.Params{Speed: 50, Pitch: 50, Volume: 50}, "-v cmn -s 175 -p 50 -a 100 --stdout -- 你好 world"},
		{"language zh", "hi", tts.Params{Language: "zh", Speed: 0, Pitch: 100, Volume: 100}, "-v cmn -s 80 -p 99 -a 200 --stdout -- hi"},
		{"explicit voice", "-rf", tts.Params{Voice: "en-gb", Speed: 100, Pitch: 0, Volume: 0}, "-v en-gb -s 270 -p 0 -a 0 --stdout -- -rf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(espeak.Args(tt.text, tt.p), " "); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
