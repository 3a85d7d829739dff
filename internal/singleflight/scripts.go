package singleflight

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// flightKeys are the Redis keys of one flight. They share the hash tag
// {<key hash>}, so every script touching them runs on Redis Cluster.
type flightKeys struct {
	tag    string // "{<hash>}"
	meta   string // hash: state, owner, token, seq, hb, followed, failure fields
	result string // hash: enc, size, stored, sum, data, token
	stream string // completion events, MAXLEN streamMaxLen
}

// keysFor derives the Redis keys of the flight key.
func keysFor(prefix, key string) flightKeys {
	h := sha256.Sum256([]byte(key))
	tag := "{" + hex.EncodeToString(h[:16]) + "}"
	base := prefix + "sf:" + tag
	return flightKeys{tag: tag, meta: base + ":meta", result: base + ":result", stream: base + ":stream"}
}

func (k flightKeys) all() []string { return []string{k.meta, k.result, k.stream} }

// Statuses returned by the acquire script.
const (
	statusOwnerNew      = "OWNER_NEW"
	statusOwnerTakeover = "OWNER_TAKEOVER"
	statusReplaySuccess = "REPLAY_SUCCESS"
	statusReplayFailure = "REPLAY_FAILURE"
	statusFollowerWait  = "FOLLOWER_WAIT"
)

// Meta states.
const (
	stateRunning   = "RUNNING"
	stateSucceeded = "SUCCEEDED"
	stateFailed    = "FAILED"
)

// streamMaxLen caps each flight's stream: only the latest completions matter.
const streamMaxLen = 8

// maxEventPayload is the largest stored payload carried in a completion
// event, so that a follower needs no fetch; larger ones are fetched by
// re-running acquire.
const maxEventPayload = 64 << 10

// luaPrelude is shared by the scripts: the server clock in milliseconds
// (never the client's: clock skew between instances cannot cause takeovers)
// and the owner check. Every redis.call costs the script about a microsecond
// or two, which is most of a flight's time in Redis: the scripts make as
// few as the protocol allows (docs/singleflight.md, "Cost").
const luaPrelude = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- owns reports whether ARGV[1]/ARGV[2] (owner id, fencing token) own the
-- running flight, given m = HMGET meta state owner token ... A flight whose
-- meta has vanished (expired while the owner was stalled, or lost by a
-- Redis restart) is reclaimed: nobody else owns it.
local function owns(meta, m)
  if not m[1] then
    redis.call('HSET', meta, 'state', 'RUNNING', 'owner', ARGV[1], 'token', ARGV[2], 'seq', ARGV[2])
    return true
  end
  return m[1] == 'RUNNING' and m[2] == ARGV[1] and m[3] == ARGV[2]
end
`

// acquireScript: KEYS meta, result, stream; ARGV owner, lease ms,
// takeover-detect ms, token of a SUCCEEDED result found corrupt ("" if none).
var acquireScript = redis.NewScript(luaPrelude + `
local meta, result, stream = KEYS[1], KEYS[2], KEYS[3]
local now = now_ms()
local m = redis.call('HMGET', meta, 'state', 'token', 'hb', 'retry')
local state = m[1]
if not state then
  -- A new flight: the meta hash is empty, so there is nothing to clear. A
  -- result left behind by an expired meta is never read while RUNNING and is
  -- overwritten or deleted by the completion.
  redis.call('HSET', meta, 'state', 'RUNNING', 'owner', ARGV[1], 'token', 1, 'seq', 1, 'hb', now)
  redis.call('PEXPIRE', meta, ARGV[2])
  return {'OWNER_NEW', 1}
end
local function own(status)
  local seq = redis.call('HINCRBY', meta, 'seq', 1)
  redis.call('HDEL', meta, 'ftype', 'fcode', 'fmsg', 'retry')
  redis.call('HSET', meta, 'state', 'RUNNING', 'owner', ARGV[1], 'token', seq, 'hb', now)
  redis.call('PEXPIRE', meta, ARGV[2])
  redis.call('DEL', result)
  return {status, seq}
end
if state == 'SUCCEEDED' then
  if ARGV[4] ~= '' and ARGV[4] == m[2] then return own('OWNER_TAKEOVER') end
  local r = redis.call('HMGET', result, 'enc', 'size', 'stored', 'sum', 'data')
  if not r[5] then return own('OWNER_TAKEOVER') end
  return {'REPLAY_SUCCESS', m[2], r[1] or '', r[2] or '', r[3] or '', r[4] or '', r[5]}
end
if state == 'FAILED' then
  if m[4] == '1' then return own('OWNER_TAKEOVER') end
  local f = redis.call('HMGET', meta, 'ftype', 'fcode', 'fmsg')
  return {'REPLAY_FAILURE', m[2], f[1] or '', f[2] or '', f[3] or ''}
end
if now - tonumber(m[3] or '0') > tonumber(ARGV[3]) then return own('OWNER_TAKEOVER') end
-- Mark that someone waits, so that completion publishes an event (a flight
-- nobody followed costs no stream).
redis.call('HSET', meta, 'followed', 1)
local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
local id = '0-0'
if #last > 0 then id = last[1][1] end
return {'FOLLOWER_WAIT', m[2], id}
`)

// heartbeatScript: KEYS meta; ARGV owner, token, lease ms. Returns 1 when
// the lease was renewed, 0 when the caller no longer owns the flight.
var heartbeatScript = redis.NewScript(luaPrelude + `
if not owns(KEYS[1], redis.call('HMGET', KEYS[1], 'state', 'owner', 'token')) then return 0 end
redis.call('HSET', KEYS[1], 'hb', now_ms())
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// completeScript: KEYS meta, result, stream; ARGV owner, token, ttl ms,
// maxlen, doorbell channel ("" for none), state, then for SUCCEEDED: enc,
// size, stored, sum, data, carry (1 puts the payload in the event); for
// FAILED: type, code, message, retry. The event is published only when an
// acquire has returned FOLLOWER_WAIT for the flight (meta field "followed");
// on Redis Cluster the stream's name is then also PUBLISHed on the doorbell
// channel. Returns 1, or 0 when the caller no longer owns the flight.
var completeScript = redis.NewScript(luaPrelude + `
local meta, result, stream = KEYS[1], KEYS[2], KEYS[3]
local m = redis.call('HMGET', meta, 'state', 'owner', 'token', 'followed')
if not owns(meta, m) then return 0 end
local ttl, maxlen, bell, state = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local followed = m[4] ~= false
if state == 'SUCCEEDED' then
  redis.call('HSET', result, 'enc', ARGV[7], 'size', ARGV[8], 'stored', ARGV[9], 'sum', ARGV[10], 'data', ARGV[11], 'token', ARGV[2])
  redis.call('PEXPIRE', result, ttl)
  redis.call('HSET', meta, 'state', 'SUCCEEDED')
  if not followed then
  elseif ARGV[12] == '1' then
    redis.call('XADD', stream, 'MAXLEN', maxlen, '*', 'state', 'SUCCEEDED', 'token', ARGV[2],
      'enc', ARGV[7], 'size', ARGV[8], 'stored', ARGV[9], 'sum', ARGV[10], 'data', ARGV[11])
  else
    redis.call('XADD', stream, 'MAXLEN', maxlen, '*', 'state', 'SUCCEEDED', 'token', ARGV[2])
  end
else
  redis.call('HSET', meta, 'state', 'FAILED', 'ftype', ARGV[7], 'fcode', ARGV[8], 'fmsg', ARGV[9], 'retry', ARGV[10])
  redis.call('DEL', result)
  if followed then
    redis.call('XADD', stream, 'MAXLEN', maxlen, '*', 'state', 'FAILED', 'token', ARGV[2], 'retry', ARGV[10])
  end
end
redis.call('PEXPIRE', meta, ttl)
if followed then
  -- Only a followed flight has a stream (acquire's FOLLOWER_WAIT).
  redis.call('PEXPIRE', stream, ttl)
  if bell ~= '' then redis.call('PUBLISH', bell, stream) end
end
return 1
`)

// acquired is the decoded reply of the acquire script.
type acquired struct {
	status  string
	token   string  // fencing token of the owner (ours for OWNER_*)
	payload payload // REPLAY_SUCCESS
	failure Failure // REPLAY_FAILURE
	lastID  string  // FOLLOWER_WAIT: the stream's last event id
}

// store runs the flight scripts against one Redis client.
type store struct {
	rdb  redis.UniversalClient
	bell string // doorbell channel on Redis Cluster, "" on a single node
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// acquire runs the acquire script. corruptToken names a SUCCEEDED result
// found corrupt, which acquire then treats as missing.
func (s store) acquire(ctx context.Context, k flightKeys, owner string, p Policy, corruptToken string) (acquired, error) {
	v, err := acquireScript.Run(ctx, s.rdb, k.all(), owner, ms(p.RunningLease), ms(p.TakeoverDetect), corruptToken).Slice()
	if err != nil {
		return acquired{}, err
	}
	str := func(i int) string {
		if i >= len(v) {
			return ""
		}
		switch x := v[i].(type) {
		case string:
			return x
		case int64:
			return strconv.FormatInt(x, 10)
		}
		return ""
	}
	a := acquired{status: str(0), token: str(1)}
	switch a.status {
	case statusOwnerNew, statusOwnerTakeover:
	case statusReplaySuccess:
		if len(v) < 7 {
			return acquired{}, fmt.Errorf("acquire: short reply %v", v)
		}
		a.payload = payloadFrom(v[2], v[3], v[4], v[5], v[6])
	case statusReplayFailure:
		a.failure = Failure{Type: str(2), Code: str(3), Message: str(4)}
	case statusFollowerWait:
		a.lastID = str(2)
	default:
		return acquired{}, fmt.Errorf("acquire: unexpected reply %v", v)
	}
	return a, nil
}

// heartbeat renews the lease; false means ownership was lost.
func (s store) heartbeat(ctx context.Context, k flightKeys, owner, token string, p Policy) (bool, error) {
	n, err := heartbeatScript.Run(ctx, s.rdb, []string{k.meta}, owner, token, ms(p.RunningLease)).Int()
	return n == 1, err
}

// completeSuccess stores the result, marks the flight SUCCEEDED, notifies
// followers and sets the TTLs, in one script; false means ownership was lost.
func (s store) completeSuccess(ctx context.Context, k flightKeys, owner, token string, p Policy, pl payload) (bool, error) {
	carry := "0"
	if pl.Stored <= maxEventPayload {
		carry = "1"
	}
	n, err := completeScript.Run(ctx, s.rdb, k.all(), owner, token, ms(p.ResultTTL), streamMaxLen, s.bell, stateSucceeded,
		pl.Enc, pl.Size, pl.Stored, pl.Sum, pl.Data, carry).Int()
	return n == 1, err
}

// completeFailure marks the flight FAILED with f, notifies followers and sets
// the TTLs, in one script; false means ownership was lost.
func (s store) completeFailure(ctx context.Context, k flightKeys, owner, token string, p Policy, f Failure) (bool, error) {
	retry := "0"
	if f.Retryable {
		retry = "1"
	}
	n, err := completeScript.Run(ctx, s.rdb, k.all(), owner, token, ms(p.FailedTTL), streamMaxLen, s.bell, stateFailed,
		f.Type, f.Code, f.Message, retry).Int()
	return n == 1, err
}
