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
	meta   string // hash: state, owner, token, lease, followed, then the result or the failure
	stream string // completion events, MAXLEN streamMaxLen; exists only once followed
}

// keysFor derives the Redis keys of the flight key.
func keysFor(prefix, key string) flightKeys {
	h := sha256.Sum256([]byte(key))
	var tag [34]byte // "{" + 32 hex digits + "}"
	tag[0], tag[33] = '{', '}'
	hex.Encode(tag[1:33], h[:16])
	return flightKeys{
		meta:   prefix + "sf:" + string(tag[:]) + ":meta",
		stream: prefix + "sf:" + string(tag[:]) + ":stream",
	}
}

func (k flightKeys) all() []string { return []string{k.meta, k.stream} }

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

// One key per flight: the meta hash holds the flight's state and, once it
// is SUCCEEDED, the stored result (pl: the payload's header, data) or, once
// FAILED, the failure (ftype, fcode, fmsg, retry). Creating and expiring a
// key is a large part of a script's cost in Redis, every redis.call costs
// about a microsecond more, and every argument or field about a tenth of
// one: the scripts make as few as the protocol allows
// (docs/singleflight.md, "Cost in Redis").
//
// Liveness needs no clock call: an owner's acquire and heartbeats set the
// meta hash's expiry to its running lease (PEXPIRE; the lease is kept in the
// "lease" field), so the age of its last heartbeat is lease - PTTL, both
// Redis server time. The clocks of the instances never matter.

// luaOwns is the owner check of heartbeat and complete: whether ARGV[1] /
// ARGV[2] (owner id, fencing token) own the running flight, given m = HMGET
// meta state owner token .... A flight whose meta has vanished (expired
// while the owner was stalled, or lost by a Redis restart) is reclaimed with
// lease ms: nobody else owns it.
const luaOwns = `
local function owns(meta, m, lease)
  if not m[1] then
    redis.call('HSET', meta, 'state', 'RUNNING', 'owner', ARGV[1], 'token', ARGV[2], 'lease', lease)
    return true
  end
  return m[1] == 'RUNNING' and m[2] == ARGV[1] and m[3] == ARGV[2]
end
`

// acquireScript: KEYS meta, stream; ARGV owner, lease ms, takeover-detect
// ms, token of a SUCCEEDED result found corrupt ("" if none). A new flight
// costs three redis.calls (HMGET, HSET, PEXPIRE), a replay two.
var acquireScript = redis.NewScript(`
local meta, stream = KEYS[1], KEYS[2]
local m = redis.call('HMGET', meta, 'state', 'token', 'lease', 'retry')
local state = m[1]
if not state then
  -- A new flight: the hash is empty, so there is nothing to clear.
  redis.call('HSET', meta, 'state', 'RUNNING', 'owner', ARGV[1], 'token', 1, 'lease', ARGV[2])
  redis.call('PEXPIRE', meta, ARGV[2])
  return {'OWNER_NEW', 1}
end
local function own(status)
  local token = redis.call('HINCRBY', meta, 'token', 1)
  -- A stale result or failure is never read while RUNNING; dropping it
  -- keeps a RUNNING hash small (takeovers are rare).
  redis.call('HDEL', meta, 'pl', 'data', 'ftype', 'fcode', 'fmsg', 'retry')
  redis.call('HSET', meta, 'state', 'RUNNING', 'owner', ARGV[1], 'lease', ARGV[2])
  redis.call('PEXPIRE', meta, ARGV[2])
  return {status, token}
end
if state == 'SUCCEEDED' then
  if ARGV[4] ~= '' and ARGV[4] == m[2] then return own('OWNER_TAKEOVER') end
  local r = redis.call('HMGET', meta, 'pl', 'data')
  if not r[2] then return own('OWNER_TAKEOVER') end
  return {'REPLAY_SUCCESS', m[2], r[1] or '', r[2]}
end
if state == 'FAILED' then
  if m[4] == '1' then return own('OWNER_TAKEOVER') end
  local f = redis.call('HMGET', meta, 'ftype', 'fcode', 'fmsg')
  return {'REPLAY_FAILURE', m[2], f[1] or '', f[2] or '', f[3] or ''}
end
-- RUNNING: the owner's last acquire or heartbeat set the expiry to its
-- lease, so lease - PTTL is the age of its last sign of life (no expiry,
-- PTTL -1, counts as stale).
if tonumber(m[3] or ARGV[2]) - redis.call('PTTL', meta) > tonumber(ARGV[3]) then return own('OWNER_TAKEOVER') end
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
var heartbeatScript = redis.NewScript(luaOwns + `
if not owns(KEYS[1], redis.call('HMGET', KEYS[1], 'state', 'owner', 'token'), ARGV[3]) then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// completeScript: KEYS meta, stream; ARGV owner, token, ttl ms, doorbell
// channel ("" for none), then for SUCCEEDED: the payload's header and data;
// for FAILED: type, code, message, retry. The event is published only when
// an acquire has returned FOLLOWER_WAIT for the flight (meta field
// "followed"); it carries the payload when it is at most maxEventPayload
// bytes. On Redis Cluster the stream's name is then also PUBLISHed on the
// doorbell channel. Returns 1, or 0 when the caller no longer owns the
// flight. An unfollowed success costs three redis.calls (HMGET, HSET,
// PEXPIRE).
var completeScript = redis.NewScript(luaOwns + `
local maxlen, maxcarry = ` + strconv.Itoa(streamMaxLen) + `, ` + strconv.Itoa(maxEventPayload) + `
local meta, stream = KEYS[1], KEYS[2]
local m = redis.call('HMGET', meta, 'state', 'owner', 'token', 'followed')
if not owns(meta, m, ARGV[3]) then return 0 end
local ttl, bell = ARGV[3], ARGV[4]
local followed = m[4] ~= false
if #ARGV == 6 then
  redis.call('HSET', meta, 'state', 'SUCCEEDED', 'pl', ARGV[5], 'data', ARGV[6])
  if not followed then
  elseif #ARGV[6] <= maxcarry then
    redis.call('XADD', stream, 'MAXLEN', maxlen, '*', 'state', 'SUCCEEDED', 'token', ARGV[2], 'pl', ARGV[5], 'data', ARGV[6])
  else
    redis.call('XADD', stream, 'MAXLEN', maxlen, '*', 'state', 'SUCCEEDED', 'token', ARGV[2])
  end
else
  redis.call('HSET', meta, 'state', 'FAILED', 'ftype', ARGV[5], 'fcode', ARGV[6], 'fmsg', ARGV[7], 'retry', ARGV[8])
  if followed then
    redis.call('XADD', stream, 'MAXLEN', maxlen, '*', 'state', 'FAILED', 'token', ARGV[2], 'retry', ARGV[8])
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
		if len(v) < 4 {
			return acquired{}, fmt.Errorf("acquire: short reply %v", v)
		}
		a.payload = payloadFrom(v[2], v[3])
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
	n, err := completeScript.Run(ctx, s.rdb, k.all(), owner, token, ms(p.ResultTTL), s.bell, pl.header(), pl.Data).Int()
	return n == 1, err
}

// completeFailure marks the flight FAILED with f, notifies followers and sets
// the TTLs, in one script; false means ownership was lost.
func (s store) completeFailure(ctx context.Context, k flightKeys, owner, token string, p Policy, f Failure) (bool, error) {
	retry := "0"
	if f.Retryable {
		retry = "1"
	}
	n, err := completeScript.Run(ctx, s.rdb, k.all(), owner, token, ms(p.FailedTTL), s.bell, f.Type, f.Code, f.Message, retry).Int()
	return n == 1, err
}
