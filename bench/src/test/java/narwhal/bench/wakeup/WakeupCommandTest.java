package narwhal.bench.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import narwhal.bench.Bench;
import narwhal.bench.wakeup.Gaps.Gap;
import narwhal.bench.wakeup.HostFacts.IdleState;
import narwhal.bench.wakeup.Plan.Block;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code narwhal bench wakeup}: the command line, the pure parts (gaps, plan, percentiles, the
 * report, the prober's output), child clean-up, and one short end-to-end run. Nested, so that
 * {@code -Dtest='WakeupCommandTest*'} runs all of them.
 */
class WakeupCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Bench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private static Gap gap(String label, long nanos) {
    return new Gap(label, nanos);
  }

  @Nested
  class CommandLine {

    @Test
    void benchHelp_listsWakeup_andItsHelpListsItsFlags() {
      assertThat(run("--help")).isZero();
      assertThat(out()).contains("wakeup");
      out.reset();
      assertThat(run("wakeup", "--help")).isZero();
      assertThat(out()).contains("Usage: narwhal bench wakeup", "--gaps-ms=G,G,...", "0,0.05,0.2,1,4.5,20",
          "--samples=N", "default 2000", "--echo-spin", "--probe-spin=on|off", "--pin=auto|on|off", "--echo-cpu",
          "--probe-cpu", "--bytes", "--out");
      assertThat(err()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0,-1       | '-1' is negative",
        "0,abc      | 'abc' is not a number of milliseconds; e.g. --gaps-ms 0,0.05,0.2,1,4.5,20",
        "0,,1       | has an empty entry",
        "1,1.0      | 1.0 ms is given twice; list each gap once",
        "20000      | longer than 10000 ms"})
    void badGaps_areAUsageError_sayingWhatToFix_andStartNothing(String gaps, String message, @TempDir Path dir)
        throws IOException {
      assertThat(run("wakeup", "--gaps-ms", gaps, "--pin", "off", "--out", dir.toString())).isEqualTo(2);
      assertThat(err()).startsWith("narwhal bench wakeup: --gaps-ms").contains(message);
      try (Stream<Path> files = Files.list(dir)) {
        assertThat(files).as("no results directory: nothing ran").isEmpty();
      }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--samples   | 0     | --samples must be at least 1, got 0",
        "--bytes     | 70000 | --bytes must be 1 to 65536, got 70000",
        "--probe-spin| yes   | --probe-spin must be on or off, got 'yes'",
        "--echo-io   | kqueue| --echo-io must be auto, epoll or nio, got 'kqueue'",
        "--pin       | maybe | --pin must be auto, on or off, got 'maybe'"})
    void badFlagValues_areAUsageError(String flag, String value, String message, @TempDir Path dir) {
      assertThat(run("wakeup", flag, value, "--out", dir.toString())).isEqualTo(2);
      assertThat(err()).contains("narwhal bench wakeup: " + message);
    }
  }

  @Nested
  class GapParsing {

    @Test
    void defaultGaps_areExactNanoseconds_inTheOrderGiven_withTheUsersSpelling() {
      List<Gap> gaps = Gaps.parse("0, 0.05,0.2,1,4.5,20");
      assertThat(gaps).extracting(Gap::nanos).containsExactly(0L, 50_000L, 200_000L, 1_000_000L, 4_500_000L,
          20_000_000L);
      assertThat(gaps).extracting(Gap::label).containsExactly("0", "0.05", "0.2", "1", "4.5", "20");
      assertThat(Gaps.parse("4.5,1").get(0).nanos()).isEqualTo(4_500_000L);
    }

    @Test
    void baseline_isTheZeroGap_elseTheShortest() {
      assertThat(Gaps.baseline(Gaps.parse("1,0,20")).label()).isEqualTo("0");
      assertThat(Gaps.baseline(Gaps.parse("4.5,0.2,20")).label()).isEqualTo("0.2");
    }

    @Test
    void nonsense_isRejectedWithTheFix() {
      assertThatThrownBy(() -> Gaps.parse("")).hasMessageContaining("empty entry");
      assertThatThrownBy(() -> Gaps.parse("NaN")).hasMessageContaining("'NaN' is not a number");
      assertThatThrownBy(() -> Gaps.parse("0,-0.5")).hasMessageContaining("'-0.5' is negative");
    }
  }

  @Nested
  class Planning {

    private final List<Gap> gaps = List.of(gap("0", 0), gap("20", 20_000_000));

    @Test
    void blocks_interleaveTheGapsRoundByRound_andAddUpToTheSamples() {
      Plan plan = Plan.of(gaps, 10, 60, 4);
      assertThat(plan.blocks()).extracting(Block::gap).containsExactly(0, 1, 0, 1, 0, 1, 0, 1);
      assertThat(plan.blocks()).extracting(Block::samples).containsExactly(3, 3, 3, 3, 2, 2, 2, 2);
      assertThat(plan.samples(0)).isEqualTo(10);
      assertThat(plan.samples(1)).isEqualTo(10);
      assertThat(plan.idleSeconds()).isCloseTo(10 * 0.020, within(1e-9));
    }

    @Test
    void secondsPerGap_capsLongGaps_only() {
      Plan plan = Plan.of(gaps, 2000, 10, 4);
      assertThat(plan.samples(0)).isEqualTo(2000);
      assertThat(plan.samples(1)).as("10 s / 20 ms").isEqualTo(500);
      assertThat(Plan.of(gaps, 2000, 0.001, 4).samples(1)).as("never fewer than one per round").isEqualTo(4);
    }

    @Test
    void defaults_stayUnderTwoMinutes() {
      Plan plan = Plan.of(Gaps.parse("0,0.05,0.2,1,4.5,20"), 2000, 60, 4);
      assertThat(plan.idleSeconds()).isLessThan(90);
      assertThat(plan.samples(5)).isEqualTo(2000);
    }

    @Test
    void encoding_roundTrips() {
      Plan plan = Plan.of(gaps, 7, 60, 3);
      assertThat(Plan.decode(plan.encode())).isEqualTo(plan);
      assertThat(plan.encode()).startsWith("0:0:3,1:20000000:3,");
    }
  }

  @Nested
  class Percentiles {

    @Test
    void nearestRank_onOneToHundredMicroseconds() {
      List<Long> values = new ArrayList<>(LongStream.rangeClosed(1, 100).map(v -> v * 1000).boxed().toList());
      Collections.shuffle(values, new java.util.Random(7));
      RttStats s = RttStats.of(gap("1", 1_000_000), values.stream().mapToLong(Long::longValue).toArray(), 2, 15_000);
      assertThat(s.samples()).isEqualTo(100);
      assertThat(s.p50Us()).isEqualTo(50.0);
      assertThat(s.p90Us()).isEqualTo(90.0);
      assertThat(s.p99Us()).isEqualTo(99.0);
      assertThat(s.minUs()).isEqualTo(1.0);
      assertThat(s.maxUs()).isEqualTo(100.0);
      assertThat(s.meanUs()).isEqualTo(50.5);
      assertThat(s.lateSends()).isEqualTo(2);
      assertThat(s.maxLateUs()).isEqualTo(15.0);
    }

    @Test
    void nearestRank_onFewSamples() {
      long[] sorted = {10, 20, 30, 40};
      assertThat(RttStats.percentile(sorted, 50)).isEqualTo(20);
      assertThat(RttStats.percentile(sorted, 90)).isEqualTo(40);
      assertThat(RttStats.percentile(new long[] {7}, 99)).isEqualTo(7);
      assertThatThrownBy(() -> RttStats.of(gap("1", 1), new long[0], 0, 0)).hasMessageContaining("no samples");
    }
  }

  @Nested
  class Report {

    private final Gap zero = gap("0", 0);
    private final Gap long20 = gap("20", 20_000_000);
    private final List<RttStats> rows = List.of(
        new RttStats(zero, 2000, 30.0, 35.5, 60.25, 20, 200, 31, 0, 0),
        new RttStats(long20, 500, 280.4, 310.0, 400.0, 250, 900, 285, 3, 42.5));

    private WakeupReport report(Gap baseline) {
      Map<String, Object> facts = new LinkedHashMap<>();
      facts.put("echo_cpu", 1);
      facts.put("echo_cpu_idle_states_during_run", Map.of("state1", "haltpoll idle: 9 entries"));
      return new WakeupReport("Wake-up cost test", facts, rows, baseline);
    }

    @Test
    void table_oneRowPerGap_withTheMedianAddedOverTheZeroGap() {
      assertThat(report(zero).table()).isEqualTo(
          "| gap ms | samples | RTT p50 µs | RTT p90 µs | RTT p99 µs | added over the 0 ms gap's p50 µs "
              + "| late sends (latest µs) |\n"
              + "|---:|---:|---:|---:|---:|---:|---:|\n"
              + "| 0 | 2000 | 30.0 | 35.5 | 60.3 | +0.0 | 0 (0.0) |\n"
              + "| 20 | 500 | 280.4 | 310.0 | 400.0 | +250.4 | 3 (42.5) |\n");
    }

    @Test
    void anotherBaseline_isNamedInTheHeader_andSubtracted() {
      WakeupReport r = report(long20);
      assertThat(r.table()).contains("added over the 20 ms gap's p50 µs",
          "| 0 | 2000 | 30.0 | 35.5 | 60.3 | -250.4 |");
    }

    @Test
    void markdown_hasTheFactsAndTheTable_jsonTheFigures() {
      String md = report(zero).markdown();
      assertThat(md).startsWith("# Wake-up cost test\n\n- echo_cpu: 1\n- echo_cpu_idle_states_during_run:\n"
          + "  - state1: haltpoll idle: 9 entries\n").contains("| 20 | 500 | 280.4 |");
      Map<String, Object> json = report(zero).json();
      assertThat(json).containsEntry("echo_cpu", 1).containsEntry("baseline_gap_ms", 0.0);
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> gaps = (List<Map<String, Object>>) json.get("gaps");
      assertThat(gaps).hasSize(2);
      assertThat(gaps.get(1)).containsEntry("gap_ms", 20.0).containsEntry("samples", 500)
          .containsEntry("late_sends", 3);
      assertThat((double) gaps.get(1).get("added_p50_us")).isCloseTo(250.4, within(1e-9));
    }
  }

  @Nested
  class ProberOutput {

    @Test
    void blockLines_roundTrip() {
      BlockResult b = new BlockResult(2, 1, 12_345, new long[] {40_000, 41_000});
      assertThat(b.line()).isEqualTo("block 2 1 12345 40000 41000");
      assertThat(BlockResult.parse(b.line())).isEqualTo(b);
      assertThatThrownBy(() -> BlockResult.parse("blocks 1")).hasMessageContaining("not a prober block line");
    }

    @Test
    void rows_gatherEveryRoundsBlocksPerGap() {
      List<Gap> gaps = List.of(gap("0", 0), gap("1", 1_000_000));
      List<RttStats> rows = WakeupCommand.rows(gaps, List.of("block 0 0 0 10000 30000", "block 1 1 20000 90000",
          "block 0 0 0 20000", "block 1 0 5000 110000 100000", "done"));
      assertThat(rows).extracting(RttStats::samples).containsExactly(3, 3);
      assertThat(rows.get(0).p50Us()).isEqualTo(20.0);
      assertThat(rows.get(1).p50Us()).isEqualTo(100.0);
      assertThat(rows.get(1).lateSends()).isEqualTo(1);
      assertThat(rows.get(1).maxLateUs()).isEqualTo(20.0);
    }

    @Test
    void aProberThatStoppedEarly_isAnError() {
      List<Gap> gaps = List.of(gap("0", 0));
      assertThatThrownBy(() -> WakeupCommand.rows(gaps, List.of("block 0 0 0 10000")))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("no 'done' line");
    }
  }

  @Nested
  class Host {

    @Test
    void sysfsFiles_readWhenThere_unreadableWhenNot(@TempDir Path root) throws IOException {
      write(root, "sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n");
      write(root, "proc/sys/kernel/osrelease", "6.1.0-test\n");
      Map<String, Object> facts = new HostFacts(root).describe();
      assertThat(facts).containsEntry("cpuidle_driver", "haltpoll").containsEntry("kernel", "6.1.0-test")
          .containsEntry("guest_halt_poll_ns", HostFacts.UNREADABLE);
      assertThat((String) facts.get("java")).contains(System.getProperty("java.runtime.version"));
    }

    @Test
    void idleStateEntries_areTheDifferenceBetweenSnapshots(@TempDir Path root) throws IOException {
      Path state = root.resolve("sys/devices/system/cpu/cpu1/cpuidle/state1");
      write(root, "sys/devices/system/cpu/cpu1/cpuidle/state1/name", "haltpoll idle\n");
      write(root, "sys/devices/system/cpu/cpu1/cpuidle/state1/latency", "1\n");
      write(root, "sys/devices/system/cpu/cpu1/cpuidle/state1/usage", "100\n");
      write(root, "sys/devices/system/cpu/cpu1/cpuidle/state1/time", "5000\n");
      HostFacts host = new HostFacts(root);
      List<IdleState> before = host.idleStates(1);
      Files.writeString(state.resolve("usage"), "160\n");
      Files.writeString(state.resolve("time"), "3005000\n");
      assertThat(HostFacts.entries(before, host.idleStates(1)))
          .containsExactly(Map.entry("state1", "haltpoll idle (exit latency 1 µs): 60 entries, 3000 ms resident"));
      assertThat(host.idleStates(-1)).isEmpty();
      assertThat(host.idleStates(7)).isEmpty();
    }

    private void write(Path root, String relative, String text) throws IOException {
      Path p = root.resolve(relative);
      Files.createDirectories(p.getParent());
      Files.writeString(p, text);
    }
  }

  @Nested
  class ChildProcesses {

    @Test
    void close_destroysChildrenStillRunning(@TempDir Path dir) throws Exception {
      Process p;
      try (Children children = new Children()) {
        p = children.start(List.of("sleep", "60"), ProcessBuilder.Redirect.DISCARD, dir.resolve("sleep.log"));
        assertThat(p.isAlive()).isTrue();
      }
      assertThat(p.isAlive()).isFalse();
    }

    @Test
    void anEchoServerThatCannotStart_failsTheRun_withItsLog_andLeavesNothingRunning(@TempDir Path dir) {
      assertThat(run("wakeup", "--gaps-ms", "0", "--samples", "5", "--pin", "off", "--out", dir.toString(),
          "--child-java-opts", "-XX:+NoSuchOptionAnywhere")).isEqualTo(1);
      assertThat(err()).contains("narwhal bench wakeup: the echo server did not start", "NoSuchOptionAnywhere");
      assertThat(wakeupChildren()).isEmpty();
    }
  }

  @Nested
  class EndToEnd {

    @Test
    void twoGaps_reportWithTwoRowsOfPositiveRoundTrips_andNoChildLeft(@TempDir Path dir) throws IOException {
      assertThat(run("wakeup", "--gaps-ms", "0,1", "--samples", "50", "--pin", "off", "--warmup-s", "0.2",
          "--out", dir.toString())).as(err()).isZero();

      Path results;
      try (Stream<Path> dirs = Files.list(dir)) {
        results = dirs.filter(p -> p.getFileName().toString().startsWith("wakeup-")).findFirst().orElseThrow();
      }
      String md = Files.readString(results.resolve("wakeup.md"));
      List<String> rows = md.lines().filter(l -> l.matches("\\| [0-9.]+ \\| .*")).toList();
      assertThat(rows).hasSize(2);
      assertThat(rows.get(0)).startsWith("| 0 | 50 | ");
      assertThat(rows.get(1)).startsWith("| 1 | 50 | ");
      for (String row : rows) {
        double p50 = Double.parseDouble(row.split("\\|")[3].trim());
        assertThat(p50).as(row).isPositive();
      }
      assertThat(md).contains("- echo_mode: block", "- probe_read: spin", "- echo_cpu: -1");

      JsonNode json = new ObjectMapper().readTree(results.resolve("wakeup.json").toFile());
      assertThat(json.get("gaps")).hasSize(2);
      for (JsonNode g : json.get("gaps")) {
        assertThat(g.get("samples").asInt()).isEqualTo(50);
        assertThat(g.get("rtt_p50_us").asDouble()).isPositive();
        assertThat(g.get("rtt_p99_us").asDouble()).isGreaterThanOrEqualTo(g.get("rtt_p50_us").asDouble());
      }
      assertThat(out()).contains("| gap ms | samples |", "wrote " + results.resolve("wakeup.md"));
      assertThat(wakeupChildren()).isEmpty();
    }
  }

  /** This JVM's child processes that run a main class of this package (none once a run is over). */
  private static List<String> wakeupChildren() {
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .map(p -> p.info().commandLine().orElse(""))
        .filter(c -> c.contains("narwhal.bench.wakeup.")).toList();
  }
}
