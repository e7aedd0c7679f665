package desktop

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// trayProcess is the tray icon, a child process (so it keeps working while the
// window is frozen or closed). If it fails the app logs and carries on.
type trayProcess struct {
	cmd    *exec.Cmd
	done   chan struct{}
	logger *slog.Logger

	mu       sync.Mutex
	stopping bool
}

// startTray starts argv (the small gatehouse binary's `tray` command: the
// tray needs neither GTK nor WebKit).
func startTray(argv []string, stderr io.Writer, logger *slog.Logger) *trayProcess {
	if len(argv) == 0 {
		return nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), TrayOfAppEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = trayAttrs()
	if err := cmd.Start(); err != nil {
		logger.Warn("tray icon not started; the window still has every control", "err", err)
		return nil
	}
	t := &trayProcess{cmd: cmd, done: make(chan struct{}), logger: logger}
	go func() {
		err := cmd.Wait()
		close(t.done)
		t.mu.Lock()
		stopping := t.stopping
		t.mu.Unlock()
		if !stopping {
			logger.Warn("tray icon exited; the window still has every control", "err", err)
		}
	}()
	// Whether the icon can be seen is the tray's to say: it logs "tray
	// icon shown", or that there is no tray here and where the kill switch
	// is instead.
	logger.Info("tray process started", "pid", cmd.Process.Pid)
	return t
}

// stop ends the tray: SIGTERM, then SIGKILL after a grace period.
func (t *trayProcess) stop(grace time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	select {
	case <-t.done:
		return
	default:
	}
	_ = t.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-t.done:
	case <-time.After(grace):
		_ = t.cmd.Process.Kill()
		<-t.done
	}
}
