#!/usr/bin/env bash
# The benchmark harness: builds what it needs, installs nginx when missing, then runs narwhal-bench.
#
#   bench/run.sh                 full sweep: direct, narwhal and nginx arms, interleaved per level, with the
#                                engines streaming chunked, then (--close-levels, default 1,64) close-delimited;
#                                --arms direct,narwhal,nginx,nginx-both adds nginx relaying both legs
#   bench/run.sh sweep [flags]   the same with flags (bench/run.sh sweep --help lists them; bin/narwhal bench
#                                runs this script)
#   bench/run.sh profile [flags] the narwhal arm at one level (default 256 streams; --levels N) after the usual
#                                warm-up, with a CPU profile of the router over the measurement window only:
#                                async-profiler (from Maven Central, inside the bench jar) attached with jcmd as
#                                the window opens (event=itimer, 1 ms) and stopped as it closes -> profile.html,
#                                profile.collapsed and the top frames by self time in report.md; then one more
#                                window for an allocation profile (alloc.html; --alloc-profile off skips it).
#                                JFR stands in when async-profiler cannot load (--profiler jfr forces it).
#   bench/run.sh ceiling         8,000 slow streams through one router (bin/jvm.options: a 512 MiB heap at most)
#   bench/run.sh smoke           every arm (nginx-both too) at one small level for a few seconds (CI)
#   bench/run.sh adaptive        the role controller's measured gain: four GPU-like simulated engines, a stationary and a
#                                phase-shifting trace, every static split (1P3D, 2P2D, 3P1D), the best one with
#                                predictive admission, and the adaptive role controller; attainment against
#                                offered rate and goodput -> bench/results/adaptive-<timestamp>/README.md
#   bench/run.sh cache           cache-aware placement's measured gain: four GPU-like simulated engines with vLLM's
#                                prefix cache and KV events; seeded multi-turn, shared-prefix and no-reuse traces;
#                                arms: cache-aware from events, approximate, priced without cache, round robin;
#                                attainment, TTFT, hit ratio, prediction, router CPU, goodput
#                                -> bench/results/cache-<timestamp>/README.md
#   bench/run.sh replicas [flags] one router against two active-active replicas (cluster over a throwaway etcd,
#                                the etcd binary from Debian's etcd-server) on the same engines and streams: req/s,
#                                CPU per token, added TTFT, etcd requests per client request; then the elected
#                                controller SIGKILLed (time to a new leader) and engine faults one replica sees
#                                (time until every replica applied the verdict), p50/p99 -> bench/results/replicas-*/
#   bench/run.sh wakeup [flags]  what a wake-up after an idle gap costs on this machine: a loopback echo server
#                                pinned to the proxy's CPU (asleep in epoll_wait between messages, as the router)
#                                and a prober pinned to another, round-trip p50/p90/p99 per idle gap (default
#                                0,0.05,0.2,1,4.5,20 ms; about a minute) -> bench/results/wakeup-<timestamp>/
#                                wakeup.md and wakeup.json; --echo-spin keeps the echo's CPU from idling (the A/B).
#                                Needs only the bench jar: no router, nginx or fonts.
#   bench/run.sh jmh [JMH args]  the JMH microbenchmarks (one token stage by stage, whole streams through the
#                                real router over loopback with bytes allocated per token, placement);
#                                e.g. bench/run.sh jmh SseRelay -prof gc
#
# sweep, smoke and profile are pinned unless --pin off: the proxy under test (the router's JVM, or
# nginx with one worker) runs alone on one CPU (the highest this shell may use; --proxy-cpu N), and
# the engines and this harness's JVM — the load generator — on the others, for every arm alike.
# With one CPU or without taskset (util-linux) they warn and run unpinned (--pin on fails instead).
#
# Results go to bench/results/<timestamp>/ (report.md, results.json, latency.png). The processes' logs,
# generated configurations and raw profiler output are deleted when the run succeeds; --keep-logs
# (anywhere on the command line) keeps them, and a failed run always keeps them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

# --keep-logs is this script's own flag: take it out before the harness parses the rest.
keep_logs=no
args=()
for a in "$@"; do
  if [ "$a" = --keep-logs ]; then keep_logs=yes; else args+=("$a"); fi
done
set -- ${args[@]+"${args[@]}"}

mode="${1:-sweep}"
if [ $# -gt 0 ]; then shift; fi
if [ "$mode" = jmh ]; then
  # Microbenchmarks need no engines, nginx or fonts: build the module (and what it uses), then run.
  ./mvnw -B -q -DskipTests -pl bench/jmh -am package
  exec java -jar "$(ls bench/jmh/target/narwhal-jmh-*-all.jar | head -n 1)" "$@"
fi
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

find_jar() { ls "$1"/target/"$2"-*-all.jar 2>/dev/null | head -n 1 || true; }
# wakeup runs its own small processes from the bench jar; every other mode runs the router too.
needs_router=yes
if [ "$mode" = wakeup ]; then needs_router=no; fi
if [ -z "$(find_jar bench narwhal-bench)" ] || { [ "$needs_router" = yes ] && [ -z "$(find_jar router-server narwhal-router-server)" ]; }; then
  echo "[bench] building the router and the harness (./mvnw -B -q -DskipTests package)"
  ./mvnw -B -q -DskipTests package
fi
# Run from copies: rebuilding the tree during a run must not swap classes under live JVMs.
work="$(mktemp -d "${TMPDIR:-/tmp}/narwhal-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$(find_jar bench narwhal-bench)" "$work/narwhal-bench.jar"
if [ "$needs_router" = yes ]; then
  cp "$(find_jar router-server narwhal-router-server)" "$work/narwhal-router.jar"
fi
jar="$work/narwhal-bench.jar"

# Help and version need no nginx, fonts or pinning: straight to the harness's own command line.
case " $mode $* " in
  *" help "*|*" --help "*|*" -h "*|*" --version "*|*" -V "*)
    rc=0
    java -jar "$jar" "$mode" "$@" || rc=$?
    exit "$rc" ;;
esac

needs_nginx=yes
case "$mode" in ceiling|profile|adaptive|cache|wakeup|replicas) needs_nginx=no ;; esac
case " $* " in *" --arms "*|*" --arms="*) [[ " $* " == *nginx* ]] || needs_nginx=no ;; esac
nginx_bin="$(command -v nginx || true)"
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ "$needs_nginx" = yes ] && [ -z "$nginx_bin" ]; then
  echo "[bench] installing nginx (Debian package)"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
fi
# The chart is drawn with Java2D, which needs fontconfig and at least one font (wakeup draws none).
if [ "$mode" != wakeup ] && { ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list 2>/dev/null | head -n 1)" ]; }; then
  echo "[bench] installing fontconfig and fonts-dejavu-core for the chart"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fontconfig fonts-dejavu-core >/dev/null
fi

cmdline="bench/run.sh $mode${*:+ $*}"
# Pinned runs: start the harness's JVM on the CPUs it will use (narwhal-bench's `cpus` command works
# them out from the same flags), so it sizes its GC and compiler threads for them; it pins its own
# threads again at start, which is all that happens when the jar is run directly. --cpus tells it
# the whole set this shell may use, which its own (already narrowed) affinity no longer shows.
pin_prefix=()
pin_flags=()
case "$mode" in
  sweep|smoke|profile)
    allowed="$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null || true)"
    if [ -n "$allowed" ] && command -v taskset >/dev/null 2>&1; then
      pin_flags=(--cpus "$allowed")
      harness_cpus="$(java -cp "$jar" narwhal.bench.Bench cpus "${pin_flags[@]}" "$@" 2>/dev/null || true)"
      if [ -n "$harness_cpus" ]; then
        pin_prefix=(taskset -c "$harness_cpus")
        echo "[bench] harness JVM on CPUs $harness_cpus (taskset)"
      fi
    fi ;;
esac
run_bench() {
  ${pin_prefix[@]+"${pin_prefix[@]}"} java -Xms1g -Xmx2g -Djava.awt.headless=true -jar "$jar" "$@"
}
run_mode() {
case "$mode" in
  sweep)
    run_bench sweep --repo "$repo" --router-jar "$work/narwhal-router.jar" --nginx "${nginx_bin:-nginx}" --command "$cmdline" \
      ${pin_flags[@]+"${pin_flags[@]}"} "$@" ;;
  smoke)
    # smoke's small defaults (one level of 4 streams, seconds per window) are the harness's own.
    run_bench smoke --repo "$repo" --router-jar "$work/narwhal-router.jar" --nginx "${nginx_bin:-nginx}" \
      --command "$cmdline" ${pin_flags[@]+"${pin_flags[@]}"} "$@" ;;
  profile)
    run_bench profile --repo "$repo" --router-jar "$work/narwhal-router.jar" --command "$cmdline" \
      ${pin_flags[@]+"${pin_flags[@]}"} "$@" ;;
  adaptive)
    run_bench adaptive --repo "$repo" --router-jar "$work/narwhal-router.jar" --command "$cmdline" "$@" ;;
  cache)
    run_bench cache --repo "$repo" --router-jar "$work/narwhal-router.jar" --command "$cmdline" "$@" ;;
  replicas)
    if ! command -v etcd >/dev/null 2>&1 && [ ! -x /usr/bin/etcd ]; then
      echo "[bench] installing etcd-server (Debian package) for the replicas' etcd"
      sudo_if_needed apt-get update -qq
      sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
    fi
    run_bench replicas --repo "$repo" --router-jar "$work/narwhal-router.jar" --command "$cmdline" "$@" ;;
  ceiling)
    run_bench ceiling --repo "$repo" --router-jar "$work/narwhal-router.jar" --command "$cmdline" "$@" ;;
  wakeup)
    # Pins its own two children (echo server, prober) with taskset, and moves itself off the echo's CPU.
    run_bench wakeup --command "$cmdline" "$@" ;;
  *)
    echo "bench/run.sh: unknown mode '$mode' (sweep, profile, ceiling, smoke, adaptive, cache, replicas, wakeup, jmh, help; --help lists them)" >&2
    exit 2 ;;
esac
}

# Where this run's directory appears: --out DIR when given, else the harness's default (smoke's is
# under TMPDIR). A marker file tells the directories this run made from earlier ones.
out_dir=bench/results
if [ "$mode" = smoke ]; then out_dir="${TMPDIR:-/tmp}/narwhal-bench-smoke"; fi
prev=""
for a in "$@"; do
  if [ "$prev" = --out ]; then out_dir="$a"; fi
  case "$a" in --out=*) out_dir="${a#--out=}" ;; esac
  prev="$a"
done
marker="$work/started"
touch "$marker"
rc=0
run_mode "$@" || rc=$?
new_dirs=()
if [ -d "$out_dir" ]; then
  while IFS= read -r d; do new_dirs+=("$d"); done < <(find "$out_dir" -mindepth 1 -maxdepth 1 -type d -newer "$marker" | sort)
fi
for d in ${new_dirs[@]+"${new_dirs[@]}"}; do
  if [ "$rc" -ne 0 ]; then
    echo "[bench] the run failed (exit status $rc); its logs are in $d/logs" >&2
  elif [ "$keep_logs" = no ]; then
    # What bench/.gitignore keeps out of the repository: logs, generated configurations, raw profiles.
    rm -rf "$d/logs" "$d/nginx" "$d/fleets"
    find "$d" \( -name 'fleet*.json' -o -name '*.collapsed' -o -name '*.jfr' \) -type f -delete
    echo "[bench] $d: logs, generated configurations and raw profiles removed (--keep-logs keeps them)"
  fi
done
exit "$rc"
