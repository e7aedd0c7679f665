package agentusage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const claudeOK = `{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s1"}
{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":0,"output_tokens":5}},"costUSD":0.01}
{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":0,"output_tokens":7}},"costUSD":0.01}
{"type":"assistant","message":{"id":"msg_2","usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":20}},"costUSD":0.02}
`

const codexOK = `{"timestamp":"t","type":"session_meta","payload":{"id":"abc"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":500,"cached_input_tokens":200,"output_tokens":40,"reasoning_output_tokens":10,"total_tokens":540}}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":900,"cached_input_tokens":600,"output_tokens":90,"reasoning_output_tokens":20,"total_tokens":990}}}}
`

const geminiOK = `{"sessionId":"0123456789ab","projectHash":"h","messages":[
{"type":"user","content":"hi"},
{"type":"gemini","content":"a","tokens":{"input":100,"output":10,"cached":50,"thoughts":5,"tool":0,"total":115}},
{"type":"gemini","content":"b","tokens":{"input":200,"output":20,"cached":0,"thoughts":0,"tool":3,"total":223}}
]}`

func TestReaders(t *testing.T) {
	tests := []struct {
		name           string
		read           func(string) Usage
		content        string
		in, out, cache int64
		why            string // set: Unknown, saying this
	}{
		{name: "claude", read: ReadClaude, content: claudeOK, in: 10 + 100 + 3 + 100, out: 7 + 20, cache: 100},
		{name: "claude truncated", read: ReadClaude, content: strings.TrimSuffix(claudeOK, "\n")[:len(claudeOK)-20], why: "partial line"},
		{name: "claude corrupt line", read: ReadClaude, content: "{\"type\":\"user\"}\n{not json\n", why: "not JSON"},
		{name: "claude newer format", read: ReadClaude, content: "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"usage\":{\"prompt\":3}}}\n", why: "newer format"},
		{name: "claude no replies yet", read: ReadClaude, content: "{\"type\":\"user\"}\n"},
		{name: "codex", read: ReadCodex, content: codexOK, in: 900, out: 90, cache: 600},
		{name: "codex truncated", read: ReadCodex, content: codexOK[:len(codexOK)-5], why: "partial line"},
		{name: "codex older format", read: ReadCodex, content: "{\"id\":\"abc\",\"instructions\":\"\"}\n", why: "session_meta"},
		{name: "codex newer token_count", read: ReadCodex, content: "{\"type\":\"session_meta\"}\n{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":{\"usage\":{}}}}\n", why: "newer format"},
		{name: "codex empty", read: ReadCodex, content: "", why: "empty"},
		{name: "gemini", read: ReadGemini, content: geminiOK, in: 303, out: 35, cache: 50},
		{name: "gemini truncated", read: ReadGemini, content: geminiOK[:len(geminiOK)/2], why: "not whole JSON"},
		{name: "gemini newer format", read: ReadGemini, content: `{"sessionId":"x","messages":[{"type":"gemini","usage":{"in":1}}]}`, why: "newer format"},
		{name: "gemini unknown shape", read: ReadGemini, content: `{"id":"x","turns":[]}`, why: "format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			u := tt.read(p)
			if tt.why != "" {
				if u.Known || !strings.Contains(u.Why, tt.why) || u.Total() != 0 {
					t.Fatalf("usage = %+v; want unknown saying %q and no number", u, tt.why)
				}
				return
			}
			if !u.Known || u.Input != tt.in || u.Output != tt.out || u.CacheRead != tt.cache {
				t.Fatalf("usage = %+v; want in %d out %d cache read %d", u, tt.in, tt.out, tt.cache)
			}
		})
	}
	if u := ReadClaude(filepath.Join(t.TempDir(), "missing.jsonl")); u.Known {
		t.Fatalf("a missing transcript is known: %+v", u)
	}
}

// ForRun finds each agent's file from the run id, under the agent's own
// directories; other agents and ids that could name other files are
// unknown.
func TestForRunFindsTheFiles(t *testing.T) {
	home := t.TempDir()
	claudeDir := filepath.Join(t.TempDir(), "claude-config")
	codexDir := filepath.Join(home, ".codex")
	put := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(claudeDir, "projects", "-home-me-proj", "c-run-1.jsonl"), claudeOK)
	put(filepath.Join(codexDir, "sessions", "2026", "12", "06", "rollout-2026-12-06T10-00-00-x-run-2.jsonl"), codexOK)
	put(filepath.Join(home, ".gemini", "tmp", "hash1", "chats", "session-2026-12-06T10-00-01234567.json"), geminiOK)
	r := &Reader{Env: Env{Home: home, ClaudeConfigDir: claudeDir}}
	tests := []struct {
		run   string
		known bool
		total int64
	}{
		{"claude:c-run-1", true, 213 + 27},
		{"codex:x-run-2", true, 990},
		{"gemini:0123456789ab", true, 338},
		{"claude:other", false, 0},
		{"claude:../../etc/passwd", false, 0},
		{"cursor:abc", false, 0},
		{"", false, 0},
	}
	for _, tt := range tests {
		u := r.ForRun(tt.run)
		if u.Known != tt.known || u.Total() != tt.total || (!u.Known && u.Why == "") {
			t.Errorf("ForRun(%q) = %+v; want known=%v total %d", tt.run, u, tt.known, tt.total)
		}
	}
}

// Gemini CLI's JSON-lines chats (newer versions): the session line, then
// messages (a message written again replaces its earlier copy) and $set
// patches; this is the shape Gemini CLI 0.61 writes.
const geminiLines = `{"sessionId":"af8265b4-86d9","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}
{"$set":{"messages":[{"id":"u0","timestamp":"t","type":"user","content":[{"text":"context"}]}],"lastUpdated":"t"}}
{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Say something"}]}
{"$set":{"lastUpdated":"t"}}
{"id":"g1","timestamp":"t","type":"gemini","content":"","tokens":{"input":10,"output":1,"cached":4,"thoughts":2,"tool":0,"total":13}}
{"id":"g1","timestamp":"t","type":"gemini","content":"","tokens":{"input":10,"output":1,"cached":4,"thoughts":2,"tool":0,"total":13},"toolCalls":[{"id":"c1"}]}
{"id":"u2","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c1"}}]}
{"id":"g2","timestamp":"t","type":"gemini","content":"done","tokens":{"input":20,"output":3,"cached":0,"thoughts":0,"tool":1,"total":24}}
`

func TestReadGeminiLines(t *testing.T) {
	tests := []struct {
		name, content string
		in, out       int64
		why           string
	}{
		{name: "whole", content: geminiLines, in: 10 + 20 + 1, out: 1 + 2 + 3},
		{name: "cut short", content: geminiLines[:len(geminiLines)-10], why: "partial line"},
		{name: "no session line", content: "{\"id\":\"u1\",\"type\":\"user\"}\n", why: "does not start with its session"},
		{name: "unknown line", content: "{\"sessionId\":\"s\"}\n{\"op\":\"append\"}\n", why: "newer format"},
		{name: "model message without tokens", content: "{\"sessionId\":\"s\"}\n{\"id\":\"g\",\"type\":\"gemini\",\"usage\":{}}\n", why: "newer format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "session-2026-12-06T11-24-af8265b4.jsonl")
			if err := os.WriteFile(p, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			u := ReadGemini(p)
			if tt.why != "" {
				if u.Known || !strings.Contains(u.Why, tt.why) {
					t.Fatalf("usage = %+v; want unknown saying %q", u, tt.why)
				}
				return
			}
			if !u.Known || u.Input != tt.in || u.Output != tt.out {
				t.Fatalf("usage = %+v; want in %d out %d", u, tt.in, tt.out)
			}
		})
	}
	// And it is found from the run id.
	home := t.TempDir()
	p := filepath.Join(home, ".gemini", "tmp", "ws", "chats", "session-2026-12-06T11-24-af8265b4.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(geminiLines), 0o600)
	if u := (&Reader{Env: Env{Home: home}}).ForRun("gemini:af8265b4-86d9"); !u.Known || u.Total() != 37 {
		t.Fatalf("ForRun = %+v", u)
	}
}
