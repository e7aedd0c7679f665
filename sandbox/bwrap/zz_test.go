//go:build integration

package bwrap

import (
	"testing"
)

func TestZZCreateTiming(t *testing.T) {
	_, sh := guardSession(t)
	t.Log(sh(`cat /proc/1/stat | awk '{print "init cpu ticks", $14, $15}'; /usr/bin/python3 -c '
import time, os
os.mkdir("out")
t=time.perf_counter()
for i in range(2000): open("out/f%d" % i, "w").close()
d=time.perf_counter()-t
print("per create us", d/2000*1e6)
t=time.perf_counter()
for i in range(2000): os.stat("out/f%d" % i)
print("per stat us", (time.perf_counter()-t)/2000*1e6)
'; cat /proc/1/stat | awk '{print "init cpu ticks", $14, $15}'`))
}
