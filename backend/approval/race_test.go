package approval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// rows records audit events with their payloads.
type rows struct {
	mu   sync.Mutex
	list []row
}

type row struct {
	kind    string
	payload map[string]any
}

func (r *rows) emit(_ context.Context, kind, _, _, _ string, payload any) {
	m, _ := payload.(map[string]any)
	r.mu.Lock()
	r.list = append(r.list, row{kind, m})
	r.mu.Unlock()
}

func (r *rows) of(kind string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, x := range r.list {
		if x.kind == kind {
			out = append(out, x.payload)
		}
	}
	return out
}

// raceBroker is a broker whose local-wins window ends only when the test
// says so: window() ends the one a device's decision is waiting out.
func raceBroker(t *testing.T) (*Broker, *rows, func()) {
	t.Helper()
	b, _ := newBroker(t, time.Minute)
	r := &rows{}
	b.emit = r.emit
	windows := make(chan chan time.Time, 4)
	b.after = func(d time.Duration) <-chan time.Time {
		if d != DefaultLocalWins {
			t.Errorf("window %s, want the default %s", d, DefaultLocalWins)
		}
		c := make(chan time.Time, 1)
		windows <- c
		return c
	}
	return b, r, func() { (<-windows) <- time.Now() }
}

var phone = Decision{Allow: true, Exposure: "x_1", Device: "Phone/1 (handset.example.test)"}

// decideAsync makes d in the background; its error arrives on the channel.
func decideAsync(t *testing.T, b *Broker, id string, d Decision) <-chan error {
	out := make(chan error, 1)
	go func() {
		_, err := b.Decide(t.Context(), id, d)
		out <- err
	}()
	return out
}

// waitHeld waits until a device's decision on id is held.
func waitHeld(t *testing.T, b *Broker, id string) {
	t.Helper()
	waitfor.For(t, 5*time.Second, "the device's decision to be held", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		w, ok := b.pending[id]
		return ok && w.held != nil
	})
}

// The local decision wins a race: one made on the computer while a
// device's decision waits out its window takes effect, the device is
// told, and its decision is kept in the audit; one made on the computer
// first wins too, and the device is told the same. Outside the window,
// the first decision wins as before.
func TestLocalDecisionWinsARace(t *testing.T) {
	local := Decision{Allow: false, Message: "decided at the desk"}
	tests := []struct {
		name string
		// run races the decisions on card id and returns what the
		// device was told.
		run func(t *testing.T, b *Broker, id string, endWindow func()) error
		// want is the decision the agent's call gets.
		want       Decision
		wantDevice error
		overridden bool
	}{
		{
			name: "computer inside the device's window",
			run: func(t *testing.T, b *Broker, id string, _ func()) error {
				dev := decideAsync(t, b, id, phone)
				waitHeld(t, b, id)
				if _, err := b.Decide(t.Context(), id, local); err != nil {
					t.Fatalf("the computer's decision: %v", err)
				}
				return <-dev
			},
			want: local, wantDevice: ErrDecidedLocally, overridden: true,
		},
		{
			name: "computer before the device",
			run: func(t *testing.T, b *Broker, id string, _ func()) error {
				if _, err := b.Decide(t.Context(), id, local); err != nil {
					t.Fatalf("the computer's decision: %v", err)
				}
				_, err := b.Decide(t.Context(), id, phone)
				return err
			},
			want: local, wantDevice: ErrDecidedLocally,
		},
		{
			name: "computer after the device's window",
			run: func(t *testing.T, b *Broker, id string, endWindow func()) error {
				dev := decideAsync(t, b, id, phone)
				endWindow()
				err := <-dev
				if _, lerr := b.Decide(t.Context(), id, local); !errors.Is(lerr, ErrSettled) {
					t.Errorf("the computer after the device's window: %v, want ErrSettled", lerr)
				}
				return err
			},
			want: phone,
		},
		{
			name: "a second device inside the first's window",
			run: func(t *testing.T, b *Broker, id string, endWindow func()) error {
				dev := decideAsync(t, b, id, phone)
				waitHeld(t, b, id)
				other := phone
				other.Allow, other.Device = false, "Tablet/2"
				if _, err := b.Decide(t.Context(), id, other); !errors.Is(err, ErrSettled) {
					t.Errorf("the second device: %v, want ErrSettled", err)
				}
				endWindow()
				return <-dev
			},
			want: phone,
		},
		{
			name: "the kill switch inside the device's window",
			run: func(t *testing.T, b *Broker, id string, _ func()) error {
				dev := decideAsync(t, b, id, phone)
				waitHeld(t, b, id)
				b.DenyAll(t.Context(), "system:kill", "stopped")
				return <-dev
			},
			want: Decision{Allow: false, Message: "stopped"}, wantDevice: ErrSettled, overridden: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, r, endWindow := raceBroker(t)
			got := askAsync(t, b, Request{Session: "s", CallID: "c", Tool: "run_command", Argv: []string{"make", "deploy"}})
			id := waitPending(t, b).ID
			if err := tt.run(t, b, id, endWindow); !errors.Is(err, tt.wantDevice) || (tt.wantDevice == nil) != (err == nil) {
				t.Fatalf("the device was told %v, want %v", err, tt.wantDevice)
			}
			d := <-got
			if d.Allow != tt.want.Allow || d.Message != tt.want.Message || d.Exposure != tt.want.Exposure {
				t.Fatalf("the call got %+v, want %+v", d, tt.want)
			}
			if n := len(r.of("approval.decided")); n != 1 {
				t.Fatalf("%d approval.decided rows, want 1", n)
			}
			over := r.of("approval.overridden")
			if !tt.overridden {
				if len(over) != 0 {
					t.Fatalf("approval.overridden rows %v, want none", over)
				}
				return
			}
			if len(over) != 1 || over[0]["approval"] != id || over[0]["exposure"] != phone.Exposure || over[0]["device"] != phone.Device ||
				over[0]["allow"] != true || over[0]["by"] == "" {
				t.Fatalf("approval.overridden rows %v", over)
			}
		})
	}
}

// The device is told in one sentence that the computer decided.
func TestDecidedLocallySaysSo(t *testing.T) {
	if msg := ErrDecidedLocally.Error(); !strings.Contains(msg, "decided on the computer") {
		t.Fatalf("ErrDecidedLocally says %q", msg)
	}
	if !errors.Is(ErrDecidedLocally, ErrNotFound) {
		t.Fatal("ErrDecidedLocally is not an ErrNotFound: the control API would not answer it as one")
	}
}
