package interview

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// This file holds the rubric rules: validating the question specs the
// model writes and resolving the interview's target role.

// ValidateSpec trims a question spec and checks its rubric: content
// present; anchors present with non-empty names unique case- and
// space-insensitively; weights positive and summing to 100; at least one
// core anchor. An invalid spec is degraded to a single core anchor "legacy"
// of weight 100 whose acceptable statements are the old anchors' statements,
// and Degraded records the first problem (e.g. "weight-sum:90"). It never
// fails. RubricVersion defaults to 1. ValidateSpec is idempotent: a valid
// spec keeps an earlier Degraded reason.
func ValidateSpec(spec QuestionSpec) QuestionSpec {
	out := QuestionSpec{
		Content:          strings.TrimSpace(spec.Content),
		CommonMistakes:   trimList(spec.CommonMistakes),
		FollowUpStrategy: strings.TrimSpace(spec.FollowUpStrategy),
		RubricVersion:    spec.RubricVersion,
		Degraded:         strings.TrimSpace(spec.Degraded),
	}
	if out.RubricVersion <= 0 {
		out.RubricVersion = 1
	}
	for _, a := range spec.Anchors {
		out.Anchors = append(out.Anchors, Anchor{
			Name:                 strings.TrimSpace(a.Name),
			Weight:               a.Weight,
			Core:                 a.Core,
			AcceptableStatements: trimList(a.AcceptableStatements),
		})
	}
	if why := rubricProblem(out); why != "" {
		var statements []string
		for _, a := range out.Anchors {
			for _, s := range a.AcceptableStatements {
				if !slices.Contains(statements, s) {
					statements = append(statements, s)
				}
			}
		}
		out.Anchors = []Anchor{{Name: LegacyAnchor, Weight: 100, Core: true, AcceptableStatements: statements}}
		out.Degraded = why
	}
	return out
}

// rubricProblem returns the first problem of a trimmed spec, or "".
func rubricProblem(spec QuestionSpec) string {
	if spec.Content == "" {
		return "missing-content"
	}
	if len(spec.Anchors) == 0 {
		return "no-anchors"
	}
	seen := map[string]bool{}
	sum, core := 0, false
	for i, a := range spec.Anchors {
		if a.Name == "" {
			return fmt.Sprintf("empty-anchor-name:%d", i)
		}
		k := normName(a.Name)
		if seen[k] {
			return "duplicate-anchor-name:" + a.Name
		}
		seen[k] = true
		if a.Weight <= 0 {
			return fmt.Sprintf("non-positive-weight:%s=%d", a.Name, a.Weight)
		}
		sum += a.Weight
		core = core || a.Core
	}
	if sum != 100 {
		return fmt.Sprintf("weight-sum:%d", sum)
	}
	if !core {
		return "no-core-anchor"
	}
	return ""
}

// trimList trims the items and drops the empty ones; nil stays nil.
func trimList(items []string) []string {
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// ResolveTarget picks the interview's target role: confirmed when not
// blank, else the most confident role hypothesis with a target (ties: the
// first), else the resume type, else DefaultTarget.
func ResolveTarget(confirmed string, p Profile) string {
	if t := strings.TrimSpace(confirmed); t != "" {
		return t
	}
	best, bestConf := "", math.Inf(-1)
	for _, h := range p.RoleHypotheses {
		if t := strings.TrimSpace(h.Target); t != "" && h.Confidence > bestConf {
			best, bestConf = t, h.Confidence
		}
	}
	if best != "" {
		return best
	}
	if t := strings.TrimSpace(p.ResumeType); t != "" {
		return t
	}
	return DefaultTarget
}
