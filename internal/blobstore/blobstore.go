// Package blobstore is the one place the service keeps files: resumes,
// agent files and TTS audio (segments while they are made, the joined file
// after). It is a thin layer over gocloud.dev/blob, which gives one API for
// a directory (file://) and any S3-compatible object store (s3://): AWS S3,
// MinIO, SeaweedFS, Aliyun OSS, Tencent COS. What it adds is the service's
// error vocabulary (ErrNotFound, ErrUnavailable), a URL that is safe to
// print, and the listing the orphan sweep needs.
//
// gocloud.dev/blob was chosen over the AWS SDK or minio-go behind our own
// interface because it already is that interface, with a maintained
// directory driver: writes become visible atomically on both (a temporary
// file and a rename; a single PUT), readers are io.ReadSeekers that fetch
// only the range asked for (http.ServeContent serves Range from them without
// buffering), and the s3:// URL form with endpoint, region and
// use_path_style is parsed by the library. It imports the standard library
// and gocloud only.
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // registers s3://
	"gocloud.dev/gcerrors"
)

// Errors returned by Store, wrapped with the key and the cause.
var (
	// ErrNotFound: no blob has the key.
	ErrNotFound = errors.New("blob not found")
	// ErrUnavailable: the store could not be reached or refused the call
	// (down, network, credentials, missing bucket).
	ErrUnavailable = errors.New("file store unavailable")
)

// Store is an opened bucket.
type Store struct {
	bucket *blob.Bucket
	url    string // masked
	scheme string
}

// Info describes one blob.
type Info struct {
	Key         string
	Size        int64
	ModTime     time.Time
	ContentType string
}

// Open opens the store at rawURL: file:///dir (created when missing) or
// s3://bucket?endpoint=http://host:port&region=r&use_path_style=true.
// S3 credentials come from the usual AWS sources (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, a profile, an instance role). Open does not
// contact the store: Ping does.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	var b *blob.Bucket
	switch u.Scheme {
	case "file":
		dir := u.Path
		if u.Host != "" && u.Host != "localhost" { // file://data/files: a relative path
			dir = u.Host + u.Path
		}
		if dir == "" {
			return nil, errors.New("blobstore: file:// URL needs a directory, e.g. file:///var/lib/aimeeting/files")
		}
		// Temporary files next to the final ones: a rename within one
		// file system is atomic, and a data dir on another device than
		// /tmp still works. No sidecar metadata files: the database keeps the
		// content types, and the directory holds exactly the blobs.
		b, err = fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true, NoTempDir: true,
			Metadata: fileblob.MetadataDontWrite})
	case "s3":
		if u.Host == "" {
			return nil, errors.New("blobstore: s3:// URL needs a bucket, e.g. s3://aimeeting?region=us-east-1")
		}
		b, err = blob.OpenBucket(ctx, rawURL)
	default:
		return nil, fmt.Errorf("blobstore: unsupported URL scheme %q: use file:// or s3://", u.Scheme)
	}
	if err != nil {
		return nil, fmt.Errorf("blobstore: open %s: %w", Mask(rawURL), err)
	}
	return &Store{bucket: b, url: Mask(rawURL), scheme: u.Scheme}, nil
}

// Mask returns rawURL without secrets: user info and query values whose
// names suggest a credential are replaced by "******".
func Mask(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "******"
	}
	if u.User != nil {
		u.User = url.User("******")
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "secret") || strings.Contains(lk, "token") || strings.Contains(lk, "password") ||
			strings.Contains(lk, "access") {
			q.Set(k, "******")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// String is the store's URL with secrets masked.
func (s *Store) String() string { return s.url }

// Remote reports whether the store is an object store rather than a
// directory.
func (s *Store) Remote() bool { return s.scheme != "file" }

// Close releases the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// Ping checks that the store answers: a missing key is an answer.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.bucket.Exists(ctx, ".ping")
	return s.wrap("ping", "", err)
}

// Put writes r under key. The blob appears whole or not at all: a failed
// or cancelled write leaves no blob.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: contentType})
	if err != nil {
		return s.wrap("put", key, err)
	}
	src := &errReader{r: r}
	if _, err := io.Copy(w, src); err != nil {
		cancel() // aborts the upload: Close then discards it
		_ = w.Close()
		if src.err != nil {
			return fmt.Errorf("blobstore put %q: read source: %w", key, src.err)
		}
		return s.wrap("put", key, err)
	}
	return s.wrap("put", key, w.Close())
}

// PutBytes writes data under key.
func (s *Store) PutBytes(ctx context.Context, key string, data []byte, contentType string) error {
	return s.wrap("put", key, s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType}))
}

// Object is an open blob: an io.ReadSeeker that fetches ranges lazily, so
// http.ServeContent answers Range requests without reading the whole blob.
type Object struct {
	*blob.Reader
}

// Open opens key for reading; the caller closes it.
func (s *Store) Open(ctx context.Context, key string) (*Object, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, s.wrap("open", key, err)
	}
	return &Object{Reader: r}, nil
}

// ReadAll returns the whole blob; for small blobs (metadata, resumes being
// read for text).
func (s *Store) ReadAll(ctx context.Context, key string) ([]byte, error) {
	b, err := s.bucket.ReadAll(ctx, key)
	return b, s.wrap("read", key, err)
}

// Stat describes key.
func (s *Store) Stat(ctx context.Context, key string) (Info, error) {
	a, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return Info{}, s.wrap("stat", key, err)
	}
	return Info{Key: key, Size: a.Size, ModTime: a.ModTime, ContentType: a.ContentType}, nil
}

// Delete removes key; a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.bucket.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return s.wrap("delete", key, err)
}

// DeletePrefix removes every blob whose key starts with prefix.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) error {
	return s.List(ctx, prefix, func(i Info) error { return s.Delete(ctx, i.Key) })
}

// List calls fn for every blob whose key starts with prefix, in key order,
// until fn returns an error.
func (s *Store) List(ctx context.Context, prefix string, fn func(Info) error) error {
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.wrap("list", prefix, err)
		}
		if o.IsDir {
			continue
		}
		if err := fn(Info{Key: o.Key, Size: o.Size, ModTime: o.ModTime}); err != nil {
			return err
		}
	}
}

// Count returns how many blobs start with prefix.
func (s *Store) Count(ctx context.Context, prefix string) (int, error) {
	n := 0
	err := s.List(ctx, prefix, func(Info) error { n++; return nil })
	return n, err
}

// SignedURL returns a URL that GETs key without credentials until expiry;
// only object stores sign (ok false on a directory).
func (s *Store) SignedURL(ctx context.Context, key string, expiry time.Duration) (_ string, ok bool, err error) {
	if !s.Remote() {
		return "", false, nil
	}
	u, err := s.bucket.SignedURL(ctx, key, &blob.SignedURLOptions{Expiry: expiry})
	if err != nil {
		return "", false, s.wrap("sign", key, err)
	}
	return u, true, nil
}

// wrap translates a gocloud error: not found, cancelled, or unavailable.
func (s *Store) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case gcerrors.Code(err) == gcerrors.NotFound:
		return fmt.Errorf("blobstore %s %q: %w", op, key, ErrNotFound)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("blobstore %s %q: %w", op, key, err)
	}
	return fmt.Errorf("blobstore %s %q on %s: %w: %w", op, key, s.url, ErrUnavailable, err)
}

// errReader remembers the error of the source, to tell it from the store's.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}
