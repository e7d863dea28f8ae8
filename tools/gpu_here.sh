#!/bin/sh
# What the Makefile's GPU_HERE holds: "nvidia" when `nvidia-smi -L` succeeds within GPU_PROBE_S seconds (10 unless
# set in the environment, as long as lessonkit doctor waits), "apple" on Apple silicon, nothing otherwise.
#
# nvidia-smi can hang (a stuck driver, a GPU that fell off the bus) or never stop printing. It runs in the background
# with its output thrown away; a watchdog kills it, and this script, when the time is up, so make never waits
# longer than that, even for an nvidia-smi that a kill cannot stop. Nothing here is left running afterwards.
limit=${GPU_PROBE_S:-10}
case $limit in '' | *[!0-9]*) limit=10 ;; esac
test "$(uname -sm)" = "Darwin arm64" && echo apple
command -v nvidia-smi >/dev/null 2>&1 || exit 0
nvidia-smi -L </dev/null >/dev/null 2>&1 &
probe=$!
(
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$limit" &
    sleeper=$!
    wait "$sleeper"
    kill -9 "$probe" 2>/dev/null
    kill -9 $$ 2>/dev/null
) </dev/null >/dev/null 2>&1 &
watchdog=$!
if wait "$probe"; then echo nvidia; fi
kill "$watchdog" 2>/dev/null
exit 0
