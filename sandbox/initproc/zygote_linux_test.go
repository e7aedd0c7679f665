package initproc

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseMountInfo(t *testing.T) {
	in := `22 1 0:21 / / rw - tmpfs tmpfs rw
30 22 0:22 / /tmp rw,nosuid - tmpfs tmpfs rw
31 30 8:1 /w /tmp/a\040b/ws rw - ext4 /dev/sda rw
32 31 0:23 / /tmp/a\040b/ws/.cache rw - tmpfs tmpfs rw
33 30 8:1 /x /tmp/x rw - ext4 /dev/sda rw
34 22 0:24 / /home/ann rw - tmpfs tmpfs rw
35 34 8:1 /g /home/ann/.gitconfig ro - ext4 /dev/sda rw
36 22 0:25 / /tmp rw - tmpfs tmpfs rw
37 36 8:1 /y /tmp/y rw - ext4 /dev/sda rw
`
	ms, err := parseMountInfo([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if ms[2].Point != "/tmp/a b/ws" || ms[2].ID != 31 || ms[2].Parent != 30 {
		t.Fatalf("escaped mount point: %+v", ms[2])
	}
	tests := []struct {
		dir  string
		want []string
	}{
		// /tmp was mounted twice: only what hangs on the one in sight counts.
		{"/tmp", []string{"/tmp/y"}},
		{"/home/ann", []string{"/home/ann/.gitconfig"}},
		{"/nowhere", nil},
	}
	for _, tt := range tests {
		if got := childMounts(ms, tt.dir); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("childMounts(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
	// Below the first /tmp, as it was before the second covered it.
	if got := childMounts(ms[:6], "/tmp"); !reflect.DeepEqual(got, []string{"/tmp/a b/ws", "/tmp/x"}) {
		t.Errorf("childMounts(/tmp) = %q: nested mounts come along with their parent", got)
	}
	if _, err := parseMountInfo([]byte("garbage\n")); err == nil {
		t.Error("a malformed line parsed")
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`:      "/a b",
		`/tab\011x`:    "/tab\tx",
		`/back\134x`:   `/back\x`,
		`/plain`:       "/plain",
		`/short\04`:    `/short\04`,
		`/not\999octl`: `/not\999octl`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

// A spawn request the zygote cannot take starts nothing and says why.
func TestSpawnFromRefuses(t *testing.T) {
	tests := []struct {
		name  string
		msg   string
		fds   int
		flags int
		want  string
	}{
		{"unknown field", `{"own_net":true,"privileged":true}`, SpawnFDs, 0, "unknown field"},
		{"too few descriptors", `{"own_net":true}`, SpawnFDs - 1, 0, "descriptors"},
		{"cgroup promised, not sent", `{"own_net":true,"cgroup":true}`, SpawnFDs, 0, "descriptors"},
		{"truncated", `{"own_net":true}`, SpawnFDs, unix.MSG_CTRUNC, "cut short"},
		{"not JSON", `{"own_net":`, SpawnFDs, 0, "decode spawn request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spawn := func(msg []byte, fds []int) (int, error) { return spawnFrom(msg, fds, nil, nil) }
			pidfd, err := spawnChecked(spawn, []byte(tt.msg), make([]int, tt.fds), tt.flags, nil)
			if pidfd != -1 || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("spawnFrom = %d, %v; want -1 and %q", pidfd, err, tt.want)
			}
		})
	}
}

func TestSpawnMessagesRoundTrip(t *testing.T) {
	b, err := EncodeSpawn(SpawnRequest{OwnNet: true, Cgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeSpawn(b)
	if err != nil || !r.OwnNet || !r.Cgroup {
		t.Fatalf("DecodeSpawn(%s) = %+v, %v", b, r, err)
	}
	if _, err := DecodeReply([]byte(`{"error":"x","pidfd":3}`)); err == nil {
		t.Error("a reply with a field the daemon does not know was taken")
	}
	if _, err := EncodeReply(SpawnReply{Error: strings.Repeat("x", MaxSpawnMessage)}); err == nil {
		t.Error("an oversized reply was encoded")
	}
}
