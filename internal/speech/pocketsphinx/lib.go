package pocketsphinx

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The shared libraries of Debian's pocketsphinx 0.8+5prealpha (packages
// libpocketsphinx3 and libsphinxbase3, pulled in by `pocketsphinx`). They
// are opened at run time with purego, so the project builds without cgo and
// without the -dev headers; a machine without them simply has no local
// recogniser.
var libNames = [][]string{
	{"libsphinxbase.so.3", "libsphinxbase.so"},
	{"libpocketsphinx.so.3", "libpocketsphinx.so"},
}

// lib holds the C functions used. Signatures follow pocketsphinx.h and
// sphinxbase/cmd_ln.h of 5prealpha.
type lib struct {
	errSetLogfp  func(fp uintptr)                                                                         // void err_set_logfp(FILE *)
	cmdLnParseR  func(inout uintptr, defn uintptr, argc int32, argv unsafe.Pointer, strict int32) uintptr // cmd_ln_t *cmd_ln_parse_r(...)
	cmdLnFreeR   func(cfg uintptr) int32                                                                  // int cmd_ln_free_r(cmd_ln_t *)
	psArgs       func() uintptr                                                                           // arg_t const *ps_args(void)
	psInit       func(cfg uintptr) uintptr                                                                // ps_decoder_t *ps_init(cmd_ln_t *)
	psFree       func(ps uintptr) int32                                                                   // int ps_free(ps_decoder_t *)
	psStartUtt   func(ps uintptr) int32                                                                   // int ps_start_utt(ps_decoder_t *)
	psEndUtt     func(ps uintptr) int32                                                                   // int ps_end_utt(ps_decoder_t *)
	psProcessRaw func(ps uintptr, data unsafe.Pointer, n uintptr, noSearch int32, fullUtt int32) int32
	psGetHyp     func(ps uintptr, score *int32) string // char const *ps_get_hyp(ps_decoder_t *, int32 *); purego copies the C string
	psInSpeech   func(ps uintptr) uint8                // uint8 ps_get_in_speech(ps_decoder_t *)
}

var (
	loadOnce  sync.Once
	loaded    *lib
	loadError error
)

// ErrNotInstalled means the pocketsphinx shared libraries are missing.
var ErrNotInstalled = errors.New("pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)")

// load opens the libraries once per process.
func load() (*lib, error) {
	loadOnce.Do(func() {
		var handles []uintptr
		for _, names := range libNames {
			var h uintptr
			var err error
			for _, name := range names {
				if h, err = purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
					break
				}
			}
			if h == 0 {
				loadError = fmt.Errorf("%w: %v", ErrNotInstalled, err)
				return
			}
			handles = append(handles, h)
		}
		base, ps := handles[0], handles[1]
		l := &lib{}
		for _, f := range []struct {
			h    uintptr
			fn   any
			name string
		}{
			{base, &l.errSetLogfp, "err_set_logfp"},
			{base, &l.cmdLnParseR, "cmd_ln_parse_r"},
			{base, &l.cmdLnFreeR, "cmd_ln_free_r"},
			{ps, &l.psArgs, "ps_args"},
			{ps, &l.psInit, "ps_init"},
			{ps, &l.psFree, "ps_free"},
			{ps, &l.psStartUtt, "ps_start_utt"},
			{ps, &l.psEndUtt, "ps_end_utt"},
			{ps, &l.psProcessRaw, "ps_process_raw"},
			{ps, &l.psGetHyp, "ps_get_hyp"},
			{ps, &l.psInSpeech, "ps_get_in_speech"},
		} {
			sym, err := purego.Dlsym(f.h, f.name)
			if err != nil {
				loadError = fmt.Errorf("%w: symbol %s: %v", ErrNotInstalled, f.name, err)
				return
			}
			purego.RegisterFunc(f.fn, sym)
		}
		tuneMalloc()
		// The library logs every decoding step to stderr by default; a
		// NULL log file turns that off for the whole process.
		l.errSetLogfp(0)
		loaded = l
	})
	return loaded, loadError
}

// cString returns a NUL-terminated copy of s.
func cString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// glibc's malloc tuning, opened once; nil where missing (not glibc).
var (
	libcOnce   sync.Once
	mallocTrim func(pad uintptr) int32            // int malloc_trim(size_t pad)
	mallopt    func(param int32, val int32) int32 // int mallopt(int param, int value)
)

// mallopt parameters (malloc.h).
const (
	mMmapThreshold = -3
	mArenaMax      = -8
)

// tuneMalloc makes freed decoders give their memory back (issue 16: RSS
// grew from 97 MB to 900 MB over 110 speech sessions and stayed there).
// A decoder allocates its copy of the model (tens of MB, in many blocks)
// with malloc from whichever thread the Go scheduler ran the call on, and
// glibc by default (1) raises its mmap threshold to the size of every
// mmapped block freed, so later big blocks come from the heap, where they
// fragment instead of being unmapped on free, and (2) gives each thread
// its own arena, spreading the leftovers over up to 8 per core. A fixed
// mmap threshold keeps big blocks mmapped, and two arenas keep the rest
// together; trim then returns the free pages.
func tuneMalloc() {
	libcOnce.Do(func() {
		for _, name := range []string{"libc.so.6", "libc.so"} {
			h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
			if err != nil {
				continue
			}
			trim, err1 := purego.Dlsym(h, "malloc_trim")
			opt, err2 := purego.Dlsym(h, "mallopt")
			if err1 != nil || err2 != nil {
				continue
			}
			purego.RegisterFunc(&mallocTrim, trim)
			purego.RegisterFunc(&mallopt, opt)
			mallopt(mMmapThreshold, 128<<10)
			mallopt(mArenaMax, 2)
			return
		}
	})
}

// trim hands the C heap's free pages, in every arena, back to the
// operating system (malloc_trim(0)).
func (l *lib) trim() {
	if mallocTrim != nil {
		mallocTrim(0)
	}
}
