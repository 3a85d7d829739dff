package blobstore

import (
	"context"
	"errors"
	"fmt"
)

// DefaultPrefixes are the key prefixes of the service's files: the layout
// of a data dir from before storage.url (uploads/, tts/) and of every store
// since, so `--from file://<data-dir>` copies an old data dir as it is.
var DefaultPrefixes = []string{"uploads/resumes/", "uploads/agent/", "tts/audio/", "tts/work/"}

// MigrateResult counts a migration.
type MigrateResult struct {
	Files   int   // blobs found under the prefixes
	Copied  int   // copied now
	Skipped int   // already at the destination with the same size
	Bytes   int64 // copied now
}

// Progress is told of each blob handled: its size and whether it was
// copied (false: it was already there).
type Progress interface {
	Start(files int, bytes int64)
	Done(key string, size int64, copied bool)
}

// Migrate copies every blob under prefixes from src to dst, streaming, one
// at a time. A blob already at dst with the same size is skipped, so a
// migration that was stopped resumes where it was, and running it twice
// copies nothing the second time. Each copy is atomic at dst (a blob
// appears whole or not at all).
func Migrate(ctx context.Context, src, dst *Store, prefixes []string, p Progress) (MigrateResult, error) {
	var res MigrateResult
	var todo []Info
	var total int64
	for _, prefix := range prefixes {
		err := src.List(ctx, prefix, func(i Info) error {
			todo = append(todo, i)
			total += i.Size
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("list %s: %w", prefix, err)
		}
	}
	res.Files = len(todo)
	if p != nil {
		p.Start(len(todo), total)
	}
	for _, i := range todo {
		if st, err := dst.Stat(ctx, i.Key); err == nil && st.Size == i.Size {
			res.Skipped++
			if p != nil {
				p.Done(i.Key, i.Size, false)
			}
			continue
		} else if err != nil && !errors.Is(err, ErrNotFound) {
			return res, err
		}
		if err := copyBlob(ctx, src, dst, i.Key); err != nil {
			return res, err
		}
		res.Copied++
		res.Bytes += i.Size
		if p != nil {
			p.Done(i.Key, i.Size, true)
		}
	}
	return res, nil
}

func copyBlob(ctx context.Context, src, dst *Store, key string) error {
	obj, err := src.Open(ctx, key)
	if err != nil {
		return err
	}
	defer obj.Close()
	return dst.Put(ctx, key, obj, obj.ContentType())
}
