package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/agentprofile"
	"github.com/gatehouse-dev/gatehouse/backend/launcher"
)

// `gatehouse install NAME --confine`: a launcher named like the agent in
// the data dir, so that typing the agent's name starts it under
// `gatehouse run`. Gatehouse never edits the person's shell startup
// files (a surprise there is worse than a line to paste): it prints the
// line that puts the launchers first on PATH.

// confinable refuses --confine for an agent without a profile to run with.
func confinable(name string, system bool) error {
	if _, ok := agentprofile.Lookup(name); !ok {
		return userErrorf(nil, "--confine starts an agent with its profile, and Gatehouse has profiles for %s only; nothing was changed", strings.Join(agentprofile.Names(), ", "))
	}
	if system {
		return userErrorf(nil, "--confine writes a launcher for you alone, in your data directory; run it without --system")
	}
	return nil
}

// installLauncher writes the launcher for name and says how to use it.
func installLauncher(w io.Writer, dataDir, name string) error {
	bin, err := selfBinary()
	if err != nil {
		return err
	}
	out, err := launcher.Write(bin, dataDir, name)
	if err != nil {
		return err
	}
	dir, path := launcher.Dir(dataDir), os.Getenv("PATH")
	if out != launcher.Unchanged {
		fmt.Fprintf(w, "  %-9s %s\n", out, launcher.Path(dataDir, name))
	}
	lead := fmt.Sprintf("Typing %s starts it confined (gatehouse run %s)", name, name)
	if _, err := launcher.LookPath(name, path); err != nil {
		lead = fmt.Sprintf("%s is not on your PATH yet; once it is, typing %s starts it confined (gatehouse run %s)", name, name, name)
	}
	// Said once: the launcher takes no flags of Gatehouse's.
	publishing := fmt.Sprintf("A dev server it starts answers your browser with %s=5173 %s (the port or ports, comma-separated).\n", publishEnv, name)
	if sameDir(launcher.First(name, path), dir) {
		fmt.Fprintf(w, "%s: %s comes first on your PATH already.\n", lead, dir)
		fmt.Fprint(w, publishing)
		return nil
	}
	fmt.Fprintf(w, "%s when %s comes first on your PATH.\n", lead, dir)
	fmt.Fprint(w, pathLines(dir))
	fmt.Fprint(w, publishing)
	return nil
}

// removeLauncher takes the launcher for name away, if there is one, and
// says whether the PATH line is still needed.
func removeLauncher(w io.Writer, dataDir, name string) (bool, error) {
	out, err := launcher.Remove(dataDir, name)
	if err != nil || out == launcher.Unchanged {
		return false, err
	}
	dir := launcher.Dir(dataDir)
	fmt.Fprintf(w, "  %-9s %s\n", out, launcher.Path(dataDir, name))
	if left := launcher.Installed(dataDir); len(left) > 0 {
		fmt.Fprintf(w, "Typing %s starts it as before, unconfined. Keep the PATH line for %s: it still leads to the launchers for %s.\n", name, dir, strings.Join(left, ", "))
	} else {
		fmt.Fprintf(w, "Typing %s starts it as before, unconfined. You can take the line that puts %s on your PATH out of your shell's startup file.\n", name, dir)
	}
	return true, nil
}

// pathLines are the lines to paste, for the shells people use most.
func pathLines(dir string) string {
	return "Gatehouse does not edit your shell's startup file; add this line to it:\n" +
		fmt.Sprintf("  bash, zsh (~/.bashrc, ~/.zshrc):    export PATH=%s\n", shPathValue(dir)) +
		fmt.Sprintf("  fish (~/.config/fish/config.fish):  set -gx PATH %s $PATH\n", shWord(dir))
}

var shPlain = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// shPathValue is DIR:$PATH as one shell word, double quotes where the
// directory allows (the form people know), single quotes around it
// otherwise.
func shPathValue(dir string) string {
	if !strings.ContainsAny(dir, "\"$`\\!") {
		return `"` + dir + `:$PATH"`
	}
	return shWord(dir) + `:"$PATH"`
}

// shWord quotes s as one word for sh and fish when it needs quoting.
func shWord(s string) string {
	if shPlain().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
