package blobstore

import (
	"context"
	"strings"
	"time"
)

// Owner is a domain that names blobs in its rows: every blob whose key
// starts with Prefix is its, and Named says which of some of them a row
// still names.
type Owner struct {
	Prefix string
	Named  func(ctx context.Context, keys []string) (map[string]bool, error)
}

// SweepResult counts what a sweep saw.
type SweepResult struct {
	Checked int // blobs older than the grace period, under an owner's prefix
	Deleted int
}

// sweepBatch is how many keys one Named call is asked about.
const sweepBatch = 200

// Sweep deletes the blobs that no row names and that are older than grace
// (a younger blob may be one whose row is still being written: the writes
// go blob first, row after). Blobs under no owner's prefix are never
// touched. It is safe to run on several instances at once (deleting is
// idempotent); the caller still runs one at a time to spare the work.
func Sweep(ctx context.Context, s *Store, grace time.Duration, now time.Time, owners []Owner) (SweepResult, error) {
	var res SweepResult
	cutoff := now.Add(-grace)
	for _, o := range owners {
		var batch []string
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			named, err := o.Named(ctx, batch)
			if err != nil {
				return err
			}
			for _, k := range batch {
				if named[k] {
					continue
				}
				if err := s.Delete(ctx, k); err != nil {
					return err
				}
				res.Deleted++
			}
			batch = batch[:0]
			return nil
		}
		err := s.List(ctx, o.Prefix, func(i Info) error {
			if !strings.HasPrefix(i.Key, o.Prefix) || i.ModTime.After(cutoff) {
				return nil
			}
			res.Checked++
			batch = append(batch, i.Key)
			if len(batch) >= sweepBatch {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}
