package token

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestOneTimeCodesWorkOnce(t *testing.T) {
	var o OneTime
	code, _ := New()
	id := o.Add(code, time.Now().Add(time.Hour))
	if got, ok := o.Match(code); !ok || got != id {
		t.Fatalf("Match = %q %v", got, ok)
	}
	if _, ok := o.Match(code[:len(code)-1] + otherHexDigit(code[len(code)-1])); ok {
		t.Fatal("a different code matched")
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := o.Take(id); ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d requests used one code", wins.Load())
	}
	if _, ok := o.Match(code); ok {
		t.Fatal("a used code still matches")
	}

	old, _ := New()
	oldID := o.Add(old, time.Now().Add(-time.Second))
	if _, ok := o.Match(old); ok {
		t.Fatal("an expired code matched")
	}
	if _, ok := o.Take(oldID); ok {
		t.Fatal("an expired code was taken")
	}
}
