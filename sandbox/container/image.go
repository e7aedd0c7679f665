package container

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// BusyboxApplets are linked into the image BuildBusyboxImage makes:
// enough for the doctor battery and simple commands.
var BusyboxApplets = []string{
	"sh", "cat", "sleep", "setsid", "nc", "env", "kill", "echo", "ls", "mkdir",
	"mv", "rm", "id", "true", "false", "basename", "touch", "head", "ps", "wc",
}

// BuildBusyboxImage imports a minimal image named tag from a static
// busybox binary (no registry needed): /bin/busybox plus applet links.
// An image of that tag made from the same binary is kept: each import
// would leave the one before it behind, untagged.
func (b *Backend) BuildBusyboxImage(ctx context.Context, busybox, tag string) error {
	bin, err := os.ReadFile(busybox)
	if err != nil {
		return fmt.Errorf("read busybox: %w", err)
	}
	sum := sha256.Sum256(append(bin, strings.Join(BusyboxApplets, " ")...))
	label := hex.EncodeToString(sum[:])
	if out, err := b.command(ctx, "image", "inspect", "--format", `{{index .Labels "gatehouse.busybox"}}`, tag).Output(); err == nil && strings.TrimSpace(string(out)) == label {
		return nil
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeBusyboxTar(pw, bin)) }()
	cmd := b.command(ctx, "import", "--change", "LABEL gatehouse.busybox="+label, "-", tag)
	cmd.Stdin = pr
	out, err := cmd.CombinedOutput()
	pr.Close()
	if err != nil {
		return fmt.Errorf("import busybox image: %s: %w", lastLine(out, err), err)
	}
	return nil
}

func writeBusyboxTar(w io.Writer, bin []byte) error {
	tw := tar.NewWriter(w)
	now := time.Now()
	dirs := []string{"bin/", "tmp/", "etc/", "proc/", "sys/", "dev/", "root/"}
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
	passwd := []byte("root:x:0:0:root:/root:/bin/sh\n")
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "etc/passwd", Mode: 0o644, Size: int64(len(passwd)), ModTime: now}); err != nil {
		return err
	}
	if _, err := tw.Write(passwd); err != nil {
		return err
	}
	return tw.Close()
}
