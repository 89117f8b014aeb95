#!/usr/bin/env bash
# The benchmark harness: builds what it needs, installs nginx when missing, then runs narwhal-bench.
#
#   bench/run.sh                 full sweep: direct, narwhal and nginx arms, interleaved per level
#   bench/run.sh sweep [flags]   the same with flags (bench/run.sh help lists them)
#   bench/run.sh ceiling         8,000 slow streams through a router capped at -Xmx512m
#   bench/run.sh smoke           all three arms at one small level for a few seconds (CI)
#   bench/run.sh jmh [JMH args]  the JMH microbenchmarks (SSE parse-and-relay path, placement);
#                                e.g. bench/run.sh jmh SseRelay -prof gc
#
# Results go to bench/results/<timestamp>/ (report.md, results.json, latency.png, logs/).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

mode="${1:-sweep}"
if [ $# -gt 0 ]; then shift; fi
if [ "$mode" = jmh ]; then
  # Microbenchmarks need no engines, nginx or fonts: build the module (and what it uses), then run.
  ./mvnw -B -q -DskipTests -pl bench/jmh -am package
  exec java -jar "$(ls bench/jmh/target/narwhal-jmh-*-all.jar | head -n 1)" "$@"
fi
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

find_jar() { ls "$1"/target/"$2"-*-all.jar 2>/dev/null | head -n 1 || true; }
if [ -z "$(find_jar bench narwhal-bench)" ] || [ -z "$(find_jar router-server narwhal-router-server)" ]; then
  echo "[bench] building the router and the harness (./mvnw -B -q -DskipTests package)"
  ./mvnw -B -q -DskipTests package
fi
# Run from copies: rebuilding the tree during a run must not swap classes under live JVMs.
work="$(mktemp -d "${TMPDIR:-/tmp}/narwhal-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$(find_jar bench narwhal-bench)" "$work/narwhal-bench.jar"
cp "$(find_jar router-server narwhal-router-server)" "$work/narwhal-router.jar"
jar="$work/narwhal-bench.jar"

needs_nginx=yes
case "$mode" in ceiling|help|--help|-h) needs_nginx=no ;; esac
case " $* " in *" --arms "*|*" --arms="*) [[ " $* " == *nginx* ]] || needs_nginx=no ;; esac
nginx_bin="$(command -v nginx || true)"
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ "$needs_nginx" = yes ] && [ -z "$nginx_bin" ]; then
  echo "[bench] installing nginx (Debian package)"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
fi
# The chart is drawn with Java2D, which needs fontconfig and at least one font.
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list 2>/dev/null | head -n 1)" ]; then
  echo "[bench] installing fontconfig and fonts-dejavu-core for the chart"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fontconfig fonts-dejavu-core >/dev/null
fi

cmdline="bench/run.sh $mode${*:+ $*}"
run_bench() {
  java -Xms1g -Xmx2g -Djava.awt.headless=true -jar "$jar" "$@"
}
case "$mode" in
  sweep)
    run_bench sweep --repo "$repo" --router-jar "$work/narwhal-router.jar" --nginx "${nginx_bin:-nginx}" --command "$cmdline" "$@" ;;
  smoke)
    run_bench sweep --repo "$repo" --router-jar "$work/narwhal-router.jar" --nginx "${nginx_bin:-nginx}" --levels 4 --warm-s 1 --warmup-s 1 \
      --measure-s 2 --output-tokens 16 --itl-ms 5 --out "${TMPDIR:-/tmp}/narwhal-bench-smoke" \
      --command "$cmdline" "$@" ;;
  ceiling)
    run_bench ceiling --repo "$repo" --router-jar "$work/narwhal-router.jar" --command "$cmdline" "$@" ;;
  help|--help|-h)
    run_bench help ;;
  *)
    echo "bench/run.sh: unknown mode '$mode' (sweep, ceiling, smoke, jmh, help)" >&2
    exit 2 ;;
esac
