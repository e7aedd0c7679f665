package workspace

import "io/fs"

// Kind names a file's type in one word, as listings show it: file, dir,
// symlink, fifo, socket, device or other.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "other"
}

// kindNames say a non-regular type in a sentence.
var kindNames = map[string]string{
	"dir": "a directory", "symlink": "a symlink", "fifo": "a named pipe (FIFO)", "socket": "a socket", "device": "a device",
}

// KindName names a non-regular file type for error messages.
func KindName(m fs.FileMode) string {
	if n, ok := kindNames[Kind(m)]; ok {
		return n
	}
	return "not a regular file"
}
