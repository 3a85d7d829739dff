#!/usr/bin/env bash
# The benchmark of docs/performance.md, every figure a ratio taken in the
# same run and repeated RUNS times (the output gives ranges):
#   1. single-flight client path: owner and Redis replay ÷ a bare EVALSHA,
#      in-process ÷ x/sync and ÷ a goroutine hand-off (internal/singleflight);
#   2. TTS: segments/s at concurrency 2 and 4 ÷ sequential (internal/tts,
#      espeak-ng; skipped when it is missing);
#   3. HTTP: go run ./cmd/loadgen -bench (healthz, users/me, current-question,
#      distinct and replayed answers at c=1/8/32, ratios to /healthz, and
#      redis-benchmark in the same runs), on its own cluster (scripts/cluster.sh).
#
#   scripts/bench.sh [sf|tts|http]...   (default: all three)
#
# Settings: RUNS=3 SF_BENCHTIME=1s TTS_BENCHTIME=20x HTTP_DURATION=3s.
# Needs the test services (scripts/services.sh) for 1 and the cluster's
# tools (mariadbd, redis-server, nginx) for 3.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
SF_BENCHTIME=${SF_BENCHTIME:-1s}
TTS_BENCHTIME=${TTS_BENCHTIME:-20x}
HTTP_DURATION=${HTTP_DURATION:-3s}
export TEST_REDIS_ADDR=${TEST_REDIS_ADDR:-127.0.0.1:6379}
export CI=${CI:-true}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(sf tts http)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# range FILE: "min-max" of the numbers in FILE (one per line).
range() { sort -g "$1" | awk 'NR==1{lo=$1} {hi=$1} END{ if (NR==0) print "-"; else if (lo==hi) printf "%.3g\n", lo; else printf "%.3g-%.3g\n", lo, hi }'; }

sf() {
	echo "== single-flight client path ($RUNS runs, -benchtime $SF_BENCHTIME each; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	go test -c -o "$tmp/sf.test" ./internal/singleflight/
	local i
	for i in $(seq 1 "$RUNS"); do
		"$tmp/sf.test" -test.run '^$' -test.benchtime "$SF_BENCHTIME" -test.benchmem \
			-test.bench '^Benchmark(LocalDo|LocalDoUncancellable|XSyncDo|GoroutineHandoff|LocalDoVsHandoff|BareEvalsha|DistributedOwner|DistributedReplay|DistributedVsBare)$' >"$tmp/sf.$i"
		awk -v dir="$tmp" '
			/^Benchmark/ { name=$1; sub(/-[0-9]+$/, "", name); ns[name]=$3; allocs[name]=$7 }
			/^BenchmarkDistributedVsBare/ { for (i = 4; i <= NF; i++) m[$i]=$(i-1) }
			/^BenchmarkLocalDoVsHandoff/ { for (i = 4; i <= NF; i++) h[$i]=$(i-1) }
			END {
				print ns["BenchmarkLocalDo"]/1000 >> dir "/local_us"
				print ns["BenchmarkLocalDoUncancellable"]/1000 >> dir "/localu_us"
				print allocs["BenchmarkLocalDo"] >> dir "/local_allocs"
				print ns["BenchmarkLocalDo"]/ns["BenchmarkXSyncDo"] >> dir "/local_xsync"
				print ns["BenchmarkLocalDo"]/ns["BenchmarkGoroutineHandoff"] >> dir "/local_handoff"
				print ns["BenchmarkGoroutineHandoff"]/1000 >> dir "/handoff_us"
				print ns["BenchmarkBareEvalsha"]/1000 >> dir "/evalsha_us"
				print ns["BenchmarkDistributedOwner"]/ns["BenchmarkBareEvalsha"] >> dir "/owner_ratio"
				print ns["BenchmarkDistributedReplay"]/ns["BenchmarkBareEvalsha"] >> dir "/replay_ratio"
				print allocs["BenchmarkDistributedOwner"] >> dir "/owner_allocs"
				print allocs["BenchmarkDistributedReplay"] >> dir "/replay_allocs"
				print m["owner/bare"] >> dir "/owner_inter"
				print m["replay/bare"] >> dir "/replay_inter"
				print m["bare-µs"] >> dir "/bare_inter"
				print h["do/handoff"] >> dir "/local_handoff_inter"
				print h["handoff-µs"] >> dir "/handoff_inter"
				print h["do-µs"] >> dir "/local_inter"
			}' "$tmp/sf.$i"
	done
	cat <<-EOF
	| figure | range over runs | goal (issue 21) |
	| --- | --- | --- |
	| in-process Do (a request's cancellable context), µs | $(range "$tmp/local_us") ($(range "$tmp/local_allocs") allocs) | ≤ 1.5 |
	| in-process Do from a caller that cannot leave (context.Background), µs | $(range "$tmp/localu_us") | |
	| in-process ÷ x/sync singleflight | $(range "$tmp/local_xsync") | |
	| in-process ÷ one goroutine hand-off ($(range "$tmp/handoff_us") µs) | $(range "$tmp/local_handoff") | |
	| the same interleaved (one Do, $(range "$tmp/local_inter") µs, and one hand-off, $(range "$tmp/handoff_inter") µs, per iteration) | $(range "$tmp/local_handoff_inter") | ≤ 1.76 (1.5 ÷ 0.85 µs) |
	| Redis owner (acquire + complete) ÷ bare EVALSHA ($(range "$tmp/evalsha_us") µs) | $(range "$tmp/owner_ratio") ($(range "$tmp/owner_allocs") allocs) | ≤ 4 |
	| Redis replay ÷ bare EVALSHA | $(range "$tmp/replay_ratio") ($(range "$tmp/replay_allocs") allocs) | ≤ 2 |
	| the same interleaved (one owner flight, one bare EVALSHA ($(range "$tmp/bare_inter") µs), one replay per iteration): owner ÷ bare / replay ÷ bare | $(range "$tmp/owner_inter") / $(range "$tmp/replay_inter") | |
	EOF
}

tts() {
	if ! command -v espeak-ng >/dev/null; then
		echo "== tts: espeak-ng missing (scripts/tts-deps.sh); skipped"
		return
	fi
	echo "== TTS segments/s ($RUNS runs, -benchtime $TTS_BENCHTIME per concurrency; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	go test -c -o "$tmp/tts.test" ./internal/tts/
	local i
	for i in $(seq 1 "$RUNS"); do
		(cd internal/tts && "$tmp/tts.test" -test.run '^$' -test.bench '^BenchmarkSegments$' -test.benchtime "$TTS_BENCHTIME") >"$tmp/tts.$i"
		awk -v dir="$tmp" '
			/^BenchmarkSegments/ { for (f=1; f<=NF; f++) if ($(f+1)=="segments/s") { split($1, p, "="); c=p[2]; sub(/-[0-9]+$/, "", c); r[c]=$f } }
			END { print r[1] >> dir "/tts1"; print r[2]/r[1] >> dir "/tts2"; print r[4]/r[1] >> dir "/tts4" }' "$tmp/tts.$i"
	done
	cat <<-EOF
	| figure | range over runs |
	| --- | --- |
	| sequential segments/s | $(range "$tmp/tts1") |
	| concurrency 2 ÷ sequential | $(range "$tmp/tts2") |
	| concurrency 4 ÷ sequential | $(range "$tmp/tts4") |
	EOF
}

http() {
	echo "== HTTP ($RUNS runs of $HTTP_DURATION per cell; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
	go run ./cmd/loadgen -bench -bench-runs "$RUNS" -bench-duration "$HTTP_DURATION"
}

for p in "${parts[@]}"; do
	case "$p" in
	sf | tts | http) "$p" ;;
	*) echo "unknown part $p (sf, tts, http)" >&2; exit 2 ;;
	esac
done
