#!/usr/bin/env bash
# watch: a save re-grades that chapter (polling, as without inotifywait), other files' saves don't,
# and Ctrl-C (SIGINT) stops it cleanly with exit status 0.
source "$(dirname "$0")/lib.sh"
fake_graded 01-naive-add
fake_graded 02-grid-stride
cmd_grade() { echo "GRADED $*"; }   # stands in for the build and the grader
export WB_WATCH_POLL=1 WB_WATCH_INTERVAL=0.2 WB_NO_CONFIGURE=1
log="$scratch/watch.log"
wait_for() {  # text: up to 30 s
  local i
  for ((i = 0; i < 300; i++)); do grep -qF "$1" "$log" && return 0; sleep 0.1; done
  fail "watch: no '$1' within 30 s; its output: $(cat "$log")"
  return 1
}

set -m  # the watcher gets its own process group and keeps SIGINT, as in a terminal
cmd_watch 1 2 >"$log" 2>&1 &
pid=$!
set +m
wait_for "Watching 2 files (looking every 0.2 s)"
grep -q "GRADED" "$log" && fail "watch of several files graded before any save"
echo "// edited" >>"$root/chapters/02-grid-stride/kernel.cu"
wait_for "chapters/02-grid-stride/kernel.cu changed"
wait_for "GRADED 02-grid-stride"
# An editor that writes a new file and renames it over the old one.
cp "$root/chapters/01-naive-add/kernel.cu" "$scratch/new.cu"
echo "// edited too" >>"$scratch/new.cu"
mv "$scratch/new.cu" "$root/chapters/01-naive-add/kernel.cu"
wait_for "GRADED 01-naive-add"
expect_eq "one grade per save" "$(grep -c GRADED "$log")" 2
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
expect_eq "watch: exit status after Ctrl-C" "$rc" 0
expect_contains "watch: stops cleanly" "$(cat "$log")" "Stopped watching."

# One chapter: graded at once, then on each save.
set -m
cmd_watch naive >"$log" 2>&1 &
pid=$!
set +m
wait_for "Watching 1 file"
expect_eq "watch NN grades it at once" "$(grep -c 'GRADED 01-naive-add' "$log")" 1
kill -INT "$pid"
wait "$pid" || fail "watch NN: exit status $? after Ctrl-C"

# With inotifywait on PATH it waits for the folders' events instead of polling (a stand-in that
# records its arguments and returns after a moment, as a save would make it).
mkdir -p "$scratch/bin"
cat >"$scratch/bin/inotifywait" <<EOS
#!/usr/bin/env bash
echo "\$*" >>"$scratch/inotify-calls"
sleep 0.2
EOS
chmod +x "$scratch/bin/inotifywait"
set -m
PATH="$scratch/bin:$PATH" WB_WATCH_POLL= cmd_watch 1 2 >"$log" 2>&1 &
pid=$!
set +m
wait_for "Watching 2 files (inotifywait)"
echo "// saved again" >>"$root/chapters/01-naive-add/kernel.cu"
wait_for "GRADED 01-naive-add"
kill -INT "$pid"
wait "$pid" || fail "watch with inotifywait: exit status $? after Ctrl-C"
calls=$(head -n1 "$scratch/inotify-calls")
expect_eq "inotifywait's events and folders" "$calls" \
  "-qq -t 5 -e close_write -e moved_to -e create $root/chapters/01-naive-add $root/chapters/02-grid-stride"

# The real inotifywait, where inotify-tools is installed (CI installs it): a save wakes the watcher
# well before the 60 s poll interval would; a save made while a grade runs is graded next. Ctrl-C
# in a terminal reaches the whole process group, inotifywait included.
if command -v inotifywait >/dev/null; then
  cmd_grade() { echo "GRADED $*"; [[ ! -f $scratch/slow ]] || { rm -f "$scratch/slow"; sleep 1; }; }
  set -m
  WB_WATCH_POLL= WB_WATCH_INTERVAL=60 cmd_watch 1 >"$log" 2>&1 &
  pid=$!
  set +m
  wait_for "Watching 1 file (inotifywait)"
  sleep 0.5  # inotifywait is listening
  touch "$scratch/slow"
  echo "// saved, inotify" >>"$root/chapters/01-naive-add/kernel.cu"
  wait_for "chapters/01-naive-add/kernel.cu changed"
  sleep 0.5  # the grade (1 s) is running
  echo "// saved during the grade" >>"$root/chapters/01-naive-add/kernel.cu"
  for ((k = 0; k < 100 && $(grep -c GRADED "$log") < 3; k++)); do sleep 0.1; done
  expect_eq "real inotifywait: graded at start, at the save, and after the save during the grade" \
    "$(grep -c 'GRADED 01-naive-add' "$log")" 3
  kill -INT -- "-$pid"
  wait "$pid" || fail "watch with the real inotifywait: exit status $? after Ctrl-C"
else
  echo "note: inotifywait is not installed here: the real inotifywait part was not run"
fi
finish
