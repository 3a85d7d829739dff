// Command resumecorpus writes the resume corpus (see package resumecorpus)
// into a directory, with each file's source text beside it as NAME.txt.
//
//	go run ./internal/doctext/cmd/resumecorpus -out /tmp/resumes
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/xunzhi-ai/aimeeting/internal/doctext/resumecorpus"
)

func main() {
	out := flag.String("out", "resumes", "directory to write the corpus into")
	flag.Parse()
	if err := run(context.Background(), *out); err != nil {
		fmt.Fprintln(os.Stderr, "resumecorpus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string) error {
	files, missing, err := resumecorpus.Generate(ctx, dir)
	if err != nil {
		return err
	}
	for _, m := range missing {
		fmt.Printf("skipped %s: %s is not installed (apt-get install %s)\n", m.Producer, m.Program, m.Package)
	}
	for _, f := range files {
		if err := os.WriteFile(f.Path+".txt", []byte(f.Source+"\n"), 0o644); err != nil {
			return err
		}
		fmt.Println(f.Path)
	}
	return nil
}
