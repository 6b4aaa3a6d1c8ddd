// compose-check validates docker-compose.yml with compose-go, the loader Docker Compose itself uses: the Compose
// specification's JSON schema plus the loader's own checks (unknown keys, bad types, dangling references).
// There is no Docker engine in CI, so this is how the file stays valid. Usage: go run . ../../docker-compose.yml
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <docker-compose.yml>")
		os.Exit(2)
	}
	path, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions([]string{path},
		cli.WithWorkingDirectory(filepath.Dir(path)),
		cli.WithOsEnv,
		cli.WithName("dataops-temporal"),
		cli.WithProfiles([]string{"*"}),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s is not a valid Compose file: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("%s is valid: %d services (%v)\n", os.Args[1], len(project.Services), project.ServiceNames())
}
