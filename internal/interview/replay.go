package interview

import (
	"encoding/json"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// replayCacheSize bounds the in-process replay cache: a stored response is
// 1-4 KB, so at most a few MB.
const replayCacheSize = 2048

// replayCache keeps, in process, the encoded responses of done answers that
// were replayed, so that the next identical replay needs no query.
//
// No instance ever has to be told about a change, because there is none
// to tell: a done turn's response is written once (CompleteAnswer) and never
// changed or deleted (only FAILED turns are deleted or retried; sessions
// and users are never deleted, and a session's owner never changes). An
// entry therefore says exactly what the database would: the caller owns the
// session (the entry was made from a query that checked it, and is keyed by
// the caller) and the turn is done with this response. Abandoning or
// finishing the session does not stop replays in the database path either
// (a done request is replayed before the session's state is looked at), so
// an entry outlives nothing the database would refuse. Only the replay
// window (replayFor, counted from the turn's creation) ends an entry's use,
// and it is checked on every hit.
type replayCache struct {
	lru *lru.Cache[replayKey, replayEntry]
}

type replayKey struct{ userID, sessionID, requestID string }

type replayEntry struct {
	body      json.RawMessage // the AnswerResp as the API encodes it
	createdAt time.Time       // the turn's creation: the replay window starts here
}

func newReplayCache(size int) *replayCache {
	c, _ := lru.New[replayKey, replayEntry](size) // size > 0: no error
	return &replayCache{lru: c}
}

// get returns the encoded response of request of userID's session when it
// is cached and still within the replay window at now.
func (c *replayCache) get(userID, sessionID, requestID string, now time.Time) (json.RawMessage, bool) {
	e, ok := c.lru.Get(replayKey{userID, sessionID, requestID})
	if !ok || now.Sub(e.createdAt) >= replayFor {
		return nil, false
	}
	return e.body, true
}

// put caches the response of a done turn read from the database.
func (c *replayCache) put(userID, sessionID, requestID string, resp *AnswerResp, createdAt time.Time) {
	b, err := json.Marshal(resp)
	if err != nil {
		return
	}
	c.lru.Add(replayKey{userID, sessionID, requestID}, replayEntry{body: b, createdAt: createdAt})
}

// ReplayJSON answers an identical answer from this instance's memory: the
// stored response of in's request (encoded as the API sends it) when it was
// already replayed here, without any query; false otherwise (Answer then
// decides, from the database). An invalid input is never answered here.
func (s *Service) ReplayJSON(userID, sessionID string, in AnswerInput) (json.RawMessage, bool) {
	if userID == "" || in.validate(sessionID) != nil {
		return nil, false
	}
	b, ok := s.replays.get(userID, sessionID, in.RequestID, s.now())
	if ok {
		s.metrics.replays.Inc()
	}
	return b, ok
}
