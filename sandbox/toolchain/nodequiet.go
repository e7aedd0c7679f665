package toolchain

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// nodeQuiet is loaded first by every Node a sandboxed command starts
// (NODE_OPTIONS=--require). The sandbox sets NODE_USE_ENV_PROXY so that
// Node's own fetch goes through the proxy, and Node 22.21 and later then
// print "EnvHttpProxyAgent is experimental" on every start: in every
// command's stderr, and failing test suites that expect a child node to
// print nothing there. It drops that one warning. --require is read by
// every Node since 8; --disable-warning, which would say the same, makes
// a Node older than 20.11 refuse to start. A worker thread prints the
// warning before its preloads run, so it still does.
const nodeQuiet = `'use strict';
// Gatehouse: drops the warning NODE_USE_ENV_PROXY makes Node print at
// every start; every other warning is printed as before.
const proxyWarning = (w) => w != null && w.code === 'UNDICI-EHPA';
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const o = rest[0];
  const code = o !== null && typeof o === 'object' ? o.code : rest[1];
  if (code === 'UNDICI-EHPA' || proxyWarning(warning)) return;
  return emitWarning.call(this, warning, ...rest);
};
for (const listener of process.listeners('warning')) {
  process.removeListener('warning', listener);
  process.on('warning', (w) => { if (!proxyWarning(w)) listener(w); });
}
`

// NodeQuiet writes the script into dir (made if missing) unless it is
// there already, and returns its path and the NODE_OPTIONS entry that
// loads it; an error for a path NODE_OPTIONS cannot carry.
func NodeQuiet(dir string) (path, env string, err error) {
	path = filepath.Join(dir, "quiet-proxy-warning.cjs")
	if strings.ContainsAny(path, "\"\\\n") {
		return "", "", fmt.Errorf("Node cannot be told to load %q", path)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, []byte(nodeQuiet)) {
		if err := writeReplacing(path, []byte(nodeQuiet)); err != nil {
			return "", "", err
		}
	}
	// Node reads NODE_OPTIONS split at spaces, keeping a quoted one whole.
	return path, `NODE_OPTIONS=--require="` + path + `"`, nil
}

// writeReplacing writes b to path through a temporary file beside it,
// so a Node starting meanwhile reads the old script or the new one.
func writeReplacing(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".quiet-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), 0o444)); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
