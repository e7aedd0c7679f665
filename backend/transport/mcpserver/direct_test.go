package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/call"
)

func TestParseDirectCall(t *testing.T) {
	cases := []struct {
		name, body string
		ok         bool
		id         string
		args       string
	}{
		{"plain", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a"}}}`, true, `7`, `{"path":"a"}`},
		{"string id", `{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"read_file","arguments":{}}}`, true, `"x-1"`, `{}`},
		{"no arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_dir"}}`, true, `1`, ``},
		{"malformed", `{"jsonrpc":"2.0","id":1,`, false, "", ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file"}}]`, false, "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file"}}`, false, "", ""},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"read_file"}}`, false, "", ""},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"read_file"}}`, false, "", ""},
		{"key case", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"read_file"}}`, false, "", ""},
		{"extra member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file"},"x":1}`, false, "", ""},
		{"progress token", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","_meta":{"progressToken":1}}}`, false, "", ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"read_file"}}`, false, "", ""},
		{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"read_file"}}`, false, "", ""},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"read_file"}}`, false, "", ""},
		{"no name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, false, "", ""},
		{"name not a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}`, false, "", ""},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseDirectCall([]byte(c.body))
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if ok && (string(got.id) != c.id || string(got.args) != c.args) {
				t.Fatalf("id %s args %s, want %s %s", got.id, got.args, c.id, c.args)
			}
		})
	}
}

func TestAcceptsBoth(t *testing.T) {
	cases := []struct {
		accept []string
		want   bool
	}{
		{[]string{"application/json, text/event-stream"}, true},
		{[]string{"application/json", "text/event-stream;q=0.9"}, true},
		{[]string{"application/json"}, false},
		{[]string{"text/event-stream"}, false},
		{[]string{"*/*"}, false}, // the SDK decides
		{nil, false},
	}
	for _, c := range cases {
		if got := acceptsBoth(c.accept); got != c.want {
			t.Errorf("acceptsBoth(%q) = %v, want %v", c.accept, got, c.want)
		}
	}
}

// The direct path's encoding of a result is the same JSON the SDK writes
// for it.
func TestEncodeResponseMatchesTheSDK(t *testing.T) {
	results := []call.Result{
		{CallID: "c_1_ab", Text: "hello\n"},
		{CallID: "c_2_cd", Text: "<b>&amp; \"quoted\" \u2028 tab\t\x01", IsError: true},
		{CallID: "c_3_ef", Text: "", Structured: map[string]any{"path": "a/b.txt", "size": 4096, "truncated": false, "lines": []any{1, "x<y"}}},
		{CallID: "c_4", Text: string([]byte{0xff, 'a', 0xfe})},
	}
	for _, r := range results {
		res := toolResult(r)
		buf, err := encodeResponse(json.RawMessage(`"id-1"`), res)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      string          `json:"id"`
			Result  json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", buf, err)
		}
		if got.JSONRPC != "2.0" || got.ID != "id-1" {
			t.Fatalf("envelope %s", buf)
		}
		sdk, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		json.Unmarshal(got.Result, &a)
		json.Unmarshal(sdk, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("direct:\n%s\nSDK:\n%s", got.Result, sdk)
		}
		// And the SDK's client reads it back to the same result.
		var back mcp.CallToolResult
		if err := json.Unmarshal(got.Result, &back); err != nil {
			t.Fatalf("SDK cannot read %s: %v", got.Result, err)
		}
		if tc, ok := back.Content[0].(*mcp.TextContent); !ok || back.IsError != r.IsError || back.Meta["gatehouse/call_id"] != r.CallID || (r.Text != "" && tc.Text == "") {
			t.Errorf("read back %+v", back)
		}
		responseBuffers.Put(buf)
	}
}

// An open session closes after its idle time, but never while a request
// on it is in flight.
func TestOpenSessionIdleClose(t *testing.T) {
	ctx := t.Context()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	closed := make(chan struct{})
	go func() { _ = ss.Wait(); close(closed) }()

	o := &openSession{ss: ss, idle: 50 * time.Millisecond}
	o.idleTimer = time.AfterFunc(time.Hour, o.closeIdle)
	o.begin()
	select {
	case <-closed:
		t.Fatal("closed while a request was in flight")
	case <-time.After(300 * time.Millisecond):
	}
	o.end()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("an idle session was never closed")
	}
}

// Whatever the direct path accepts, the SDK reads as the same call: a
// tools/call request with the same id, tool name and arguments. (What it
// declines goes to the SDK, so declining is always safe.)
func FuzzParseDirectCallAgreesWithTheSDK(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools\/call","params":{"name":"read\u005ffile"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b","arguments":[1]}}`,
		` {"jsonrpc" : "2.0", "id" : -3 , "method":"tools/call","params":{"name":"a","arguments":null}} `,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"tools/call\",\"params\":{\"name\":\"read_\xfe\",\"arguments\":{\"p\":\"\xff\"}}}",
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"a"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		call, ok := parseDirectCall([]byte(body))
		if !ok {
			return
		}
		msg, err := jsonrpc.DecodeMessage([]byte(body))
		if err != nil {
			t.Fatalf("direct path took %q, the SDK cannot decode it: %v", body, err)
		}
		req, isReq := msg.(*jsonrpc.Request)
		if !isReq || !req.IsCall() || req.Method != "tools/call" {
			t.Fatalf("direct path took %q, the SDK reads %#v", body, msg)
		}
		var id any // the SDK reads numbers as float64, as this does
		_ = json.Unmarshal(call.id, &id)
		if want, err := jsonrpc.MakeID(id); err != nil || want != req.ID {
			t.Fatalf("id: direct %s, SDK %v", call.id, req.ID)
		}
		var p mcp.CallToolParamsRaw
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Name != call.name || string(p.Arguments) != string(call.args) {
			t.Fatalf("params: direct %q %s, SDK %q %s (%v)", call.name, call.args, p.Name, p.Arguments, err)
		}
	})
}
