package proof

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// toolchainScript, for each dir after --, checks it is listable and not
// writable; for each NAME=PATH before it, that the sandbox finds NAME
// where the host does.
const toolchainScript = `fail=0; dirs=
for a; do
  if [ -n "$dirs" ]; then
    ls "$a" >/dev/null 2>&1 || { echo "cannot read $a"; fail=1; }
    touch "$a/.gatehouse-doctor-probe" 2>/dev/null && { rm -f "$a/.gatehouse-doctor-probe"; echo "can write $a"; fail=1; }
  elif [ "$a" = -- ]; then dirs=1
  else
    n=${a%%=*}; want=${a#*=}; got=$(command -v "$n")
    [ "$got" = "$want" ] || { echo "$n found at '$got', not $want"; fail=1; }
  fi
done
exit $fail`

// checkToolchains runs where the person's PATH leads: each toolchain dir
// outside the system dirs is readable and not writable, and a program in
// each of those PATH entries resolves inside as it does outside.
func checkToolchains(ctx context.Context, e *env) (Outcome, string) {
	tc := e.toolchains
	if len(tc.ReadOnly) == 0 {
		return Unavailable, "no toolchain outside the system dirs on PATH"
	}
	args := []string{"sh", "-c", toolchainScript, "sh"}
	var named []string
	for _, d := range tc.Path {
		if name := firstProgram(d); name != "" && !sandboxSystem(d) {
			args = append(args, name+"="+filepath.Join(d, name))
			named = append(named, name)
		}
	}
	args = append(append(args, "--"), tc.ReadOnly...)
	r, err := e.run(ctx, args, func(s *sandbox.Spec) {
		env := []string{"PATH=" + tc.PathString()}
		for _, v := range s.Env {
			if !strings.HasPrefix(v, "PATH=") {
				env = append(env, v)
			}
		}
		s.Env = append(env, tc.Env...)
	})
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if r.ExitCode != 0 {
		return Fail, firstLine(r.Stdout) + " " + firstLine(r.Stderr)
	}
	return Pass, fmt.Sprintf("read-only: %s; found %s", strings.Join(tc.ReadOnly, ", "), strings.Join(named, ", "))
}

// firstProgram is the first executable file in dir ("" if none).
func firstProgram(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, en := range ents {
		st, err := os.Stat(filepath.Join(dir, en.Name()))
		if err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 && !strings.ContainsAny(en.Name(), "= '\"") {
			return en.Name()
		}
	}
	return ""
}

func sandboxSystem(d string) bool {
	for _, s := range sandbox.SystemDirs {
		if sandbox.Within(d, s) {
			return true
		}
	}
	return false
}

// checkHomeSecrets tries to read each secret place that exists in the
// home (~/.ssh, ~/.aws, ~/.netrc, history, browser profiles…), which
// sit beside the toolchains a sandbox now sees.
func checkHomeSecrets(ctx context.Context, e *env) (Outcome, string) {
	if e.home == "" {
		return Unavailable, "no home directory"
	}
	var present []string
	for _, rel := range sandbox.HomeSecrets {
		p := filepath.Join(e.home, rel)
		if _, err := os.Lstat(p); err == nil {
			present = append(present, p)
		}
	}
	if len(present) == 0 {
		return Unavailable, "none of ~/.ssh, ~/.aws, ~/.netrc and the like exist here"
	}
	// For a directory, its listing and each file in it by name.
	var targets []string
	for _, p := range present {
		targets = append(targets, p)
		if ents, err := os.ReadDir(p); err == nil {
			for i, en := range ents {
				if i < 20 && en.Type().IsRegular() {
					targets = append(targets, filepath.Join(p, en.Name()))
				}
			}
		}
	}
	r, err := e.run(ctx, append([]string{"sh", "-c", `for p; do if [ -d "$p" ]; then ls "$p" >/dev/null 2>&1 && echo "listed $p"; else head -c1 "$p" >/dev/null 2>&1 && echo "read $p"; fi; done; exit 0`, "sh"}, targets...), nil)
	if err != nil {
		return Fail, fmt.Sprintf("run failed: %v", err)
	}
	if len(strings.TrimSpace(string(r.Stdout))) > 0 {
		return Fail, "the sandbox " + firstLine(r.Stdout)
	}
	return Pass, fmt.Sprintf("%d of them unreadable (%s…)", len(present), present[0])
}
