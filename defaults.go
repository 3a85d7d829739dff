// Package aimeeting is the root of AI-Meeting Go. It embeds application.yaml,
// the documented defaults of every configuration key, so the binary runs
// with no configuration file at all.
package aimeeting

import _ "embed"

// DefaultConfig is application.yaml as committed.
//
//go:embed application.yaml
var DefaultConfig []byte
