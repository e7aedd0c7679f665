package sandbox

// GitCoherentEnv is the environment that lets git in a run look past a
// hidden secret's stand-in: core.checkStat=minimal makes git compare a
// tracked file's size, whole-second modification time and mode, not its
// inode, device or change time, which a stand-in mounted over the file
// cannot share. The stand-in has the secret's size and times (see
// initproc), so git finds the file unchanged and never commits, resets
// or diffs it. Set through GIT_CONFIG_COUNT, which beats the
// repository's own config; ProxyEnv appends after it.
var GitCoherentEnv = []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.checkStat", "GIT_CONFIG_VALUE_0=minimal"}
