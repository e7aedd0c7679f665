package container

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// BusyboxApplets are linked into the image BuildBusyboxImage makes:
// enough for the doctor battery and simple commands.
var BusyboxApplets = []string{
	"sh", "cat", "sleep", "setsid", "nc", "env", "kill", "echo", "ls", "mkdir",
	"mv", "rm", "id", "true", "false", "basename", "touch", "head", "ps", "wc",
	"tar", "grep",
}

// BuildBusyboxImage imports a minimal image named tag from a static
// busybox binary (no registry needed): /bin/busybox plus applet links,
// and each host file of extra at its own path (a link's target's content
// at the link's path: a program and the libraries it loads, say).
// An image of that tag made from the same files is kept: each import
// would leave the one before it behind, untagged.
func (b *Backend) BuildBusyboxImage(ctx context.Context, busybox, tag string, extra ...string) error {
	bin, err := os.ReadFile(busybox)
	if err != nil {
		return fmt.Errorf("read busybox: %w", err)
	}
	files := map[string][]byte{}
	h := sha256.New()
	h.Write(bin)
	h.Write([]byte(strings.Join(BusyboxApplets, " ")))
	for _, p := range extra {
		if files[p], err = os.ReadFile(p); err != nil {
			return fmt.Errorf("read %s for the image: %w", p, err)
		}
		h.Write([]byte(p))
		h.Write(files[p])
	}
	label := hex.EncodeToString(h.Sum(nil))
	if out, err := b.command(ctx, "image", "inspect", "--format", `{{index .Labels "gatehouse.busybox"}}`, tag).Output(); err == nil && strings.TrimSpace(string(out)) == label {
		return nil
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeBusyboxTar(pw, bin, files)) }()
	cmd := b.command(ctx, "import", "--change", "LABEL gatehouse.busybox="+label, "-", tag)
	cmd.Stdin = pr
	out, err := cmd.CombinedOutput()
	pr.Close()
	if err != nil {
		return fmt.Errorf("import busybox image: %s: %w", lastLine(out, err), err)
	}
	return nil
}

func writeBusyboxTar(w io.Writer, bin []byte, files map[string][]byte) error {
	tw := tar.NewWriter(w)
	now := time.Now()
	dirs := []string{"bin/", "tmp/", "etc/", "proc/", "sys/", "dev/", "root/"}
	names := slices.Sorted(maps.Keys(files))
	for _, p := range names {
		for d := path.Dir(strings.TrimPrefix(p, "/")); d != "."; d = path.Dir(d) {
			if !slices.Contains(dirs, d+"/") {
				dirs = append(dirs, d+"/")
			}
		}
	}
	slices.Sort(dirs) // parents first
	for _, d := range dirs {
		mode := int64(0o755)
		if d == "tmp/" {
			mode = 0o1777
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: mode, ModTime: now}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bin)), ModTime: now}); err != nil {
		return err
	}
	if _, err := tw.Write(bin); err != nil {
		return err
	}
	for _, a := range BusyboxApplets {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", ModTime: now}); err != nil {
			return err
		}
	}
	for _, p := range names {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(p, "/"), Mode: 0o755, Size: int64(len(files[p])), ModTime: now}); err != nil {
			return err
		}
		if _, err := tw.Write(files[p]); err != nil {
			return err
		}
	}
	passwd := []byte("root:x:0:0:root:/root:/bin/sh\n")
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "etc/passwd", Mode: 0o644, Size: int64(len(passwd)), ModTime: now}); err != nil {
		return err
	}
	if _, err := tw.Write(passwd); err != nil {
		return err
	}
	return tw.Close()
}
